/* SPDX-License-Identifier: MIT */
/* The program the massif and DHAT fixtures profile: allocations from two call paths, some
 * freed, a large short-lived block, a copy and two ad-hoc events (DHAT). */
#include <stdlib.h>
#include <string.h>
#include <valgrind/dhat.h>
static void *keep[64];
__attribute__((noinline)) void *leaf(size_t n){ void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) void mid(int i){ keep[i] = leaf(1000 + i*100); }
__attribute__((noinline)) void other(int i){ keep[32+i] = leaf(4000); }
int main(void){
  for (int i=0;i<20;i++) mid(i);
  for (int i=0;i<10;i++) other(i);
  for (int i=0;i<10;i++) free(keep[i]);
  void *t = malloc(100000); memset(t,2,100000); free(t);
  char *a = malloc(64), *b = malloc(64); memset(a,3,64); memcpy(b,a,64); memmove(b,a,32);
  DHAT_AD_HOC_EVENT(100); DHAT_AD_HOC_EVENT(50);
  free(a);
  return 0;
}
