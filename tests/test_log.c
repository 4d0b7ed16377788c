/*
 * test_log.c - src/util/log.c: one event is one line whatever names it
 * carries, and a log that could not be written is reported, not lost; and
 * src/util/error.c: the message of an event keeps its end (the reason)
 * when it is longer than the error record holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/log.h"

/* The text of one event written to a temporary file in the given format. */
static char *event_text(cuplas_log_format fmt, const char *text, const char *field)
{
    char path[] = "/tmp/test_log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cuplas_log_opts o = { CUPLAS_LOG_INFO, fmt, path };
    cuplas_log lg;
    cuplas_error err = { 0 };
    assert_int_equal(cuplas_log_open(&lg, &o, NULL, &err), 0);
    cuplas_log_event(&lg, CUPLAS_LOG_INFO, "job_done", text, CUPLAS_LF_S("file", field), NULL);
    assert_int_equal(cuplas_log_close(&lg, &err), 0);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char *buf = calloc(1, 4096);
    assert_non_null(buf);
    assert_true(fread(buf, 1, 4095, fp) > 0);
    fclose(fp);
    unlink(path);
    return buf;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A newline, a carriage return, an escape and DEL in a file name stay
 * visible and inside the one text line (they used to split it). */
static void test_log_text_escapes_controls(void **state)
{
    (void)state;
    char *t = event_text(CUPLAS_LOG_TEXT, "cuplas: done we\nird\r\x1b[2J\x7f.h5:/grid", "x");
    assert_int_equal(lines(t), 1);
    assert_string_equal(t, "cuplas: done we\\nird\\r\\x1b[2J\\x7f.h5:/grid\n");
    free(t);
    char *j = event_text(CUPLAS_LOG_JSON, "a\nb", "we\nird.h5");
    assert_int_equal(lines(j), 1);
    assert_non_null(strstr(j, "\"file\":\"we\\nird.h5\""));
    assert_non_null(strstr(j, "\"msg\":\"a\\nb\""));
    free(j);
}

static void test_log_put_visible(void **state)
{
    (void)state;
    char buf[64] = { 0 };
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    cuplas_put_visible(f, "tab\there\x01 ok");
    fclose(f);
    assert_string_equal(buf, "tab\\there\\x01 ok");
}

/* logging.file on a full device: every line is lost, and close says so
 * (the CLI turns that into exit 3 instead of 0). */
static void test_log_write_failure_reported(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    cuplas_log_opts o = { CUPLAS_LOG_INFO, CUPLAS_LOG_JSON, "/dev/full" };
    cuplas_log lg;
    cuplas_error err = { 0 };
    assert_int_equal(cuplas_log_open(&lg, &o, NULL, &err), 0);
    cuplas_log_event(&lg, CUPLAS_LOG_INFO, "run_start", "start", NULL);
    assert_int_equal(cuplas_log_close(&lg, &err), -1);
    assert_int_equal(err.code, CUPLAS_ERR_OUTPUT);
    assert_non_null(strstr(err.msg, "the log /dev/full could not be written"));
    assert_non_null(strstr(err.msg, "No space left"));
}

/* A log that was written completely closes cleanly, twice over. */
static void test_log_close_ok(void **state)
{
    (void)state;
    cuplas_log lg;
    cuplas_error err = { 0 };
    cuplas_log_opts o = { CUPLAS_LOG_INFO, CUPLAS_LOG_TEXT, NULL };
    assert_int_equal(cuplas_log_open(&lg, &o, NULL, &err), 0);
    assert_int_equal(cuplas_log_close(&lg, &err), 0);
    assert_int_equal(cuplas_log_close(&lg, &err), 0);
    assert_int_equal(err.code, CUPLAS_OK);
}

/* A message longer than msg[] keeps its start and its end around "[...]",
 * cut between UTF-8 characters; one that fits is unchanged. */
static void test_error_keeps_reason(void **state)
{
    (void)state;
    char path[4000];
    cuplas_error err;

    /* "é" (2 bytes) throughout: any cut that splits a character shows */
    for (size_t i = 0; i + 2 < sizeof path; i += 2)
        memcpy(path + i, "\xc3\xa9", 2);
    path[sizeof path - 2] = '\0';
    cuplas_error_clear(&err);
    cuplas_error_set(&err, CUPLAS_ERR_OUTPUT, "cannot create folder %s: Permission denied", path);
    cuplas_error_where(&err, "%s:/grid", path);
    size_t n = strlen(err.msg);
    assert_true(n < sizeof err.msg && n > sizeof err.msg - 8);
    assert_memory_equal(err.msg, "cannot create folder \xc3\xa9", 23);
    assert_non_null(strstr(err.msg, "[...]"));
    assert_string_equal(err.msg + n - 19, ": Permission denied");
    assert_string_equal(err.where + strlen(err.where) - 6, ":/grid");
    for (const char *t = err.msg; *t; t++)   /* whole characters only */
        if ((unsigned char)*t == 0xc3)
            assert_int_equal((unsigned char)t[1], 0xa9);
        else if ((unsigned char)*t == 0xa9)
            assert_int_equal((unsigned char)t[-1], 0xc3);
    cuplas_error_clear(&err);
    cuplas_error_set(&err, CUPLAS_ERR_OUTPUT, "short %s", "text");
    assert_string_equal(err.msg, "short text");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_text_escapes_controls),
        cmocka_unit_test(test_log_put_visible),
        cmocka_unit_test(test_log_write_failure_reported),
        cmocka_unit_test(test_log_close_ok),
        cmocka_unit_test(test_error_keeps_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
