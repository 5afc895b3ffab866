/* Sites whose own maxima are not their bytes at the global peak, for profkit's heaptrack
 * fixtures: site_a holds 100000 B at the peak but 400000 B later. */
#include <stdlib.h>
void *site_a(void) { return malloc(100000); }
void *site_b(void) { return malloc(100000); }
void *site_c(void) { return malloc(50000); }
int main(void) {
  void *a[6], *b[4];
  for (int i = 0; i < 3; i++) a[i] = site_a();
  free(a[1]); free(a[2]);
  for (int i = 0; i < 4; i++) b[i] = site_b();
  for (int i = 0; i < 4; i++) free(b[i]);
  for (int i = 3; i < 6; i++) a[i] = site_a();
  (void)site_c();
  return 0;
}
