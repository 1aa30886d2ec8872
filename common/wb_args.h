/*
 * wb_args.h: the one option parser of the lesson programs. A program lists its options in a table
 * (name, kind, where the value goes, the accepted range) and wb_opts_parse runs the getopt_long
 * loop over it, checking every number and saying what is wrong with a refused one:
 *
 *     int layers = 12; double lr = 3e-4; const char *data = "stories"; int graph = 0;
 *     const wb_opt opts[] = {
 *         WB_INT("layers", &layers, 1, 1000), WB_DOUBLE("lr", &lr, 0, 10),
 *         WB_STRING("data", &data),           WB_FLAG("graph", &graph),
 *     };
 *     switch (wb_opts_parse(opts, 4, argc, argv)) { case 1: usage(); return 0; case -1: return 2; }
 *
 * --name VALUE and --name=VALUE are both taken; --help (or -h) makes it return 1.
 */
#ifndef WB_ARGS_H
#define WB_ARGS_H

#ifdef __cplusplus
extern "C" {
#endif

/* *out = s as a decimal int in [lo, hi]; 0 on success, -1 (out untouched) when s is empty, has
 * anything after the number, or is out of range. */
int wb_parse_int(const char *s, int lo, int hi, int *out);
/* The same for a 64-bit integer and for a finite decimal number (strtod syntax: 3e-4, 0.1). */
int wb_parse_i64(const char *s, long long lo, long long hi, long long *out);
int wb_parse_double(const char *s, double lo, double hi, double *out);

typedef enum {
    WB_OPT_INT,    /* value: int *, checked against [lo, hi] */
    WB_OPT_I64,    /* value: long long *, checked against [lo, hi] */
    WB_OPT_DOUBLE, /* value: double *, checked against [lo, hi] */
    WB_OPT_STRING, /* value: const char **, set to the argument (argv's own storage) */
    WB_OPT_FLAG,   /* value: int *, set to 1; the option takes no argument */
    WB_OPT_CALL,   /* set(value, argument): 0, or -1 after saying why (a --preset that sets others) */
} wb_opt_kind;

/* One --name of a program. metavar and help are for a usage made from the table (wb_lesson.h);
 * a program that writes its own usage leaves them NULL. */
typedef struct {
    const char *name;
    wb_opt_kind kind;
    void *value;
    double lo, hi;
    const char *metavar; /* "N" in "[--size N]" */
    const char *help;    /* its line in the usage ("\n" continues it) */
    int (*set)(void *value, const char *arg);
} wb_opt;

/* Table entries, every field given (so -Wextra has nothing to say about missing ones). */
#define WB_INT(name, var, lo, hi) {name, WB_OPT_INT, var, lo, hi, NULL, NULL, NULL}
#define WB_I64(name, var, lo, hi) {name, WB_OPT_I64, var, lo, hi, NULL, NULL, NULL}
#define WB_DOUBLE(name, var, lo, hi) {name, WB_OPT_DOUBLE, var, lo, hi, NULL, NULL, NULL}
#define WB_STRING(name, var) {name, WB_OPT_STRING, var, 0, 0, NULL, NULL, NULL}
#define WB_FLAG(name, var) {name, WB_OPT_FLAG, var, 0, 0, NULL, NULL, NULL}
#define WB_CALL(name, ctx, fn) {name, WB_OPT_CALL, ctx, 0, 0, NULL, NULL, fn}
/* An int option with its usage line: "[--size N]", and "--size  HELP (default ...)". */
#define WB_INT_HELP(name, var, lo, hi, metavar, help) {name, WB_OPT_INT, var, lo, hi, metavar, help, NULL}

/* The most options one table may have. */
#define WB_OPTS_MAX 64

/* Parses argv[1..] against the table, in order, storing each value as it comes: 0 when every
 * argument was taken, 1 when --help (or -h) was given (the caller prints its usage), -1 when one
 * was refused, after saying why on stderr ("--layers: 'abc' is not a whole number in [1, 1000]",
 * "unknown option: --x", "an option needs a value: --x", "unexpected argument 'x' (options start
 * with --)", ...). Values taken before a refused argument stay stored. Restarts getopt, so a program
 * (or a test) may call it more than once. */
int wb_opts_parse(const wb_opt *opts, int n, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
