/* An inlined helper in its own file, so that callgrind writes fi=/fe= lines. */
static inline __attribute__((always_inline)) long square(long x)
{
    return x * x;
}
