/* opt.h — the command line as tables.
 *
 * Each subcommand's options are one table (cli/options.c): a row per option
 * with its name, the kind of value it takes and the range that value must
 * be in, where the value goes (a member of the command's options struct,
 * cli/options.h), and its line of --help.  The same table parses argv
 * (gm_opt_parse), prints --help (gm_opt_help), and writes the option lists
 * of the man page and the README (gm_opt_man, gm_opt_md), which
 * tests/test_cli_docs.c checks against docs/gpumem-report.1 and README.md.
 *
 * Options shared between commands (the report's options, the collection's)
 * are written once, as row macros in options.c, and placed in each table
 * where its --help lists them.
 *
 * Parsing, for every command alike:
 *   --opt VALUE and --opt=VALUE; a flag takes no value;
 *   -h and --help print the command's help on stdout (gm_opt_parse: 1);
 *   a value is the next argument whatever it starts with, except "--" in a
 *   command that ends its options there (a program run);
 *   a value out of its range, not one of its choices, or an option the table
 *   does not have is an error that names it (gm_opt_parse: 2);
 *   a repeated option: the last value wins, a list (LIST) or a CALL gathers.
 */
#ifndef GM_CLI_OPT_H
#define GM_CLI_OPT_H

#include "../core/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
    GM_OPT_END = 0,  /* the end of a table */
    GM_OPT_TEXT,     /* no option: a line of --help (label and help as for an option) */
    GM_OPT_FLAG,     /* bool = true */
    GM_OPT_STR,      /* const char * = the value */
    GM_OPT_INT,      /* long long in [min, max], a whole decimal number */
    GM_OPT_SECONDS,  /* double: seconds in [0, 1000000]; 0 (no limit) is stored as -1 */
    GM_OPT_FRACTION, /* double strictly between 0 and 1 */
    GM_OPT_CHOICE,   /* const char * = one of choices ("md|html"), or what an alias stands for */
    GM_OPT_LIST,     /* char ** (+ size_t at at_n): comma-separated items, appended */
    GM_OPT_CALL      /* call(pre, opt, value, opts, at): the command's own rule */
} gm_opt_kind;

/* The variants of a command that have a row (bits of gm_opt.only; 0: all). */
enum {
    GM_OPT_MAIN = 1,     /* the main job: collect and render */
    GM_OPT_COLLECT = 2,  /* collect only */
    GM_OPT_HIDDEN = 4,   /* parsed, never listed (a synonym kept for scripts) */
    GM_OPT_HIDDEN_DOCS = 8 /* listed by --help only, not in the docs (a pointer to the man page) */
};

typedef struct gm_opt {
    gm_opt_kind kind;
    const char *name;     /* "--out"; NULL for TEXT */
    const char *alias;    /* "-o"; NULL: none */
    long long min, max;   /* INT */
    const char *choices;  /* CHOICE: "md|html" (listed in an error as "md or html") */
    const char *const *aliases; /* CHOICE: accepted too, not listed: pairs of the alias and
                                   the choice it stands for, NULL-terminated */
    size_t at;            /* offsetof the target in the command's options struct */
    size_t at_n;          /* LIST: offsetof its count (size_t) */
    /* CALL: store value (opts: the command's struct, at: this row's member); false
     * after printing why not, the message after pre ("diff: ") */
    bool (*call)(const char *pre, const char *opt, const char *value, void *opts, size_t at);
    const char *label;    /* --help's left column ("--out FILE"); NULL: the name */
    const char *help;     /* --help's right column, its lines separated by \n; NULL: not listed */
    const char *deflt;    /* the default as the docs give it ("20"; "—": none); NULL: not said */
    unsigned only;        /* GM_OPT_MAIN, GM_OPT_COLLECT, GM_OPT_HIDDEN, GM_OPT_HIDDEN_DOCS;
                             0: every variant, listed everywhere */
} gm_opt;

/* What "--" does in a command. */
typedef enum {
    GM_OPT_DD_OPTION = 0, /* nothing special: an unknown option */
    GM_OPT_DD_OPERANDS,   /* the arguments after it are operands */
    GM_OPT_DD_STOP        /* the options end there (a program and its arguments follow) */
} gm_opt_dd;

typedef struct {
    const char *name;     /* the command, for the docs ("render") */
    const char *head;     /* --help before the options (usage, what it does, a blank line) */
    const gm_opt *rows;   /* ends with a GM_OPT_END row */
    int column;           /* where the help text starts in --help */
    const char *tail;     /* --help after the options */
    gm_opt_dd dashdash;
    /* messages, each after "gpumem-report: " */
    const char *value_pre;     /* before "OPT: 'VALUE' is not ..." ("render: ") */
    const char *missing_pre;   /* before "OPT needs a value" */
    const char *missing_post;  /* after it (" (see gpumem-report render --help)") */
    const char *unknown_pre;   /* before "'ARG'" ("render: unknown option ") */
    const char *unknown_post;  /* after it */
    bool usage_on_error;       /* an unknown option also prints the help on stderr */
    /* An argument that is no option: true to take it, false after printing
     * why not; NULL: none is taken (an unknown option). */
    bool (*operand)(void *opts, const char *arg);
} gm_opt_table;

/* Parse argv[1..argc) into opts by t's rows of `variant` (0: all rows).
 * 0: parsed; 1: help printed (stdout); 2: an error printed.  *stop (when
 * non-NULL) is the index of the "--" that ended the options (GM_OPT_DD_STOP),
 * or argc. */
int gm_opt_parse(const gm_opt_table *t, unsigned variant, int argc, char **argv, void *opts,
                 int *stop);

/* The row of `variant` that argument a names ("--out", "-o", "--out=FILE"),
 * or NULL; *eq: the value after '=', or NULL. */
const gm_opt *gm_opt_find(const gm_opt_table *t, unsigned variant, const char *a,
                          const char **eq);
/* Does the row take a value? */
bool gm_opt_takes_value(const gm_opt *r);

/* --help: t's head, the rows of `variant`, t's tail. */
void gm_opt_help(FILE *f, const gm_opt_table *t, unsigned variant);

/* The rows of `variant` as the man page's options (.TP entries), and as the
 * rows of a Markdown table "| option | default | meaning |" (rows only). */
void gm_opt_man(gm_buf *b, const gm_opt_table *t, unsigned variant);
void gm_opt_md(gm_buf *b, const gm_opt_table *t, unsigned variant);

/* Free what LIST rows gathered into opts. */
void gm_opt_free(const gm_opt_table *t, void *opts);

#endif
