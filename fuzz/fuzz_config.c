/*
 * fuzz_config.c - libFuzzer target: the config loader on arbitrary bytes.
 *
 * The input is split at the first NUL: before it, the config file's text;
 * after it, up to 8 newline-separated --set overrides. Every input must
 * end in a loaded config or a one-line usage error, never a crash, a leak
 * (ASan's leak check runs at exit) or a multi-line message.
 *
 *   make fuzz && fuzz/fuzz_config fuzz/corpus/config
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fuzz_config.XXXXXX";
    const uint8_t *nul = memchr(data, 0, size);
    size_t text = nul ? (size_t)(nul - data) : size;
    if (fuzz_file(path, 0, data, text) != 0)
        return 0;

    char *ov_text = NULL, *ovr[8];
    int nov = 0;
    if (nul) {
        ov_text = strndup((const char *)nul + 1, size - text - 1);
        for (char *save = NULL, *t = ov_text ? strtok_r(ov_text, "\n", &save) : NULL; t && nov < 8;
             t = strtok_r(NULL, "\n", &save))
            ovr[nov++] = t;
    }
    cuplas_config cfg;
    cuplas_error err = { 0 };
    if (cuplas_config_load(&cfg, path, (const char *const *)ovr, nov, &err) == 0) {
        char *yaml = cuplas_config_to_yaml(&cfg);   /* the effective config is printable */
        free(yaml);
        cuplas_config_free(&cfg);
    } else if (strchr(err.msg, '\n') || strchr(err.where, '\n') || !err.msg[0]) {
        abort();   /* every error is one non-empty line */
    }
    free(ov_text);
    unlink(path);
    return 0;
}
