/* SPDX-License-Identifier: MIT */
/* Memory that grows in steps, holds, then shrinks, 40 ms a step: heaptrack's time stamps see
 * every level. */
#include <stdlib.h>
#include <unistd.h>

static void *blocks[8];

static void *grow(size_t size)
{
    return malloc(size);
}

int main(void)
{
    for (int i = 0; i < 8; i++) {
        blocks[i] = grow(100000);
        usleep(40000);
    }
    for (int i = 7; i >= 2; i--) {
        free(blocks[i]);
        usleep(40000);
    }
    return 0;
}
