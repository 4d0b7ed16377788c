/*
 * side.c - one function on a thread of its own (side.h).
 */
#include "util/side.h"

#include "util/threads.h"

static void *side_main(void *p)
{
    cuplas_side *s = p;
    cuplas_set_threads(s->threads);   /* a new thread starts from the default */
    s->fn(s->arg);
    return NULL;
}

int cuplas_side_start(cuplas_side *s, void (*fn)(void *), void *arg, int threads)
{
    s->fn = fn;
    s->arg = arg;
    s->threads = threads > 0 ? threads : 1;
    s->started = pthread_create(&s->thread, NULL, side_main, s) == 0;
    if (!s->started)
        fn(arg);
    return s->started;
}

void cuplas_side_join(cuplas_side *s)
{
    if (s->started)
        pthread_join(s->thread, NULL);
    s->started = 0;
}
