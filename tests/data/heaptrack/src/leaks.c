/* A leak, a peak and temporary allocations, for profkit's heaptrack fixtures. */
#include <stdlib.h>
#include <string.h>
static void *kept[8];
void *leak_some(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
void temporaries(int k) { for (int i = 0; i < k; i++) { char *volatile p = malloc(100 + i); p[0] = 1; free(p); } }
void peak(void) { void *b[10]; for (int i = 0; i < 10; i++) b[i] = malloc(100000); for (int i = 0; i < 10; i++) free(b[i]); }
void grow(void) { char *q = realloc(NULL, 500); q = realloc(q, 5000); free(q); kept[6] = calloc(10, 10); }
int main(void) {
  for (int i = 0; i < 5; i++) kept[i] = leak_some(1000 * (i + 1));
  temporaries(50);
  peak();
  for (int i = 0; i < 3; i++) leak_some(64);
  grow();
  return 0;
}
