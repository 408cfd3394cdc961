/*
 * "--index file:PATH": indexes given from outside (the model's cids), one line per thread:
 *   # comment lines and blank lines are skipped
 *   W I1 I2 ...      thread t's line (t-th non-comment line): W is the index its warm-up
 *                    sweeps use, I1.. its measured bursts' indexes in order (repeated
 *                    cyclically when the run has more bursts than the line has indexes).
 * Bad input is an error naming the file, line and column.
 */
#ifndef KSCOPE_INDEX_FILE_H
#define KSCOPE_INDEX_FILE_H

#define INDEX_FILE_MAX_PER_THREAD 100000

typedef struct index_line {
    int warmup;
    int *bursts;
    int count;        /* >= 1 */
} index_line;

/* Reads `threads` lines of indexes each in [0, max_index); 0 ok, -1 (message on stderr). */
int index_file_read(const char *path, int threads, int max_index, index_line *lines);
void index_file_free(index_line *lines, int threads);

#endif
