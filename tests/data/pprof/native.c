/* A small native program for the pprof symbolization test: run under gperftools' CPUPROFILE,
 * turned into profile.proto by `go tool pprof -symbolize=none -proto`, whose locations then
 * have addresses only. Built with -O0 -g so every function keeps its frame. */
static volatile double sink;

__attribute__((noinline)) static double leaf(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 1.0001;
    return s;
}

/* Calls leaf a few times with much work each: a sample almost never lands in middle's own code,
 * which the test expects to have no self samples. */
__attribute__((noinline)) static double middle(int n)
{
    double s = 0;
    for (int k = 0; k < 2; k++)
        s += leaf(n * 100);
    return s;
}

__attribute__((noinline)) static double other(int n)
{
    double s = 0;
    for (int i = 0; i < n * 300; i++)
        s += i % 7;
    return s;
}

int main(void)
{
    for (int r = 0; r < 20; r++) {
        sink = middle(20000);
        sink = other(20000);
    }
    return 0;
}
