build-nc/cli/cmd_collect.o: cli/cmd_collect.c cli/../core/buf.h \
 cli/../core/catalog.h cli/../core/devlock.h cli/../core/gm_error.h \
 cli/../core/pathpat.h cli/../core/results.h cli/cli.h \
 cli/../reports/render.h cli/../reports/charts.h \
 cli/../reports/../core/buf.h cli/../reports/../core/fmt.h \
 cli/../reports/../core/buf.h cli/../reports/../core/results.h \
 cli/../reports/../core/gm_error.h cli/../reports/../core/results.h \
 cli/../reports/runs.h cli/../reports/diff.h \
 cli/../reports/../core/catalog.h cli/../core/results.h
cli/../core/buf.h:
cli/../core/catalog.h:
cli/../core/devlock.h:
cli/../core/gm_error.h:
cli/../core/pathpat.h:
cli/../core/results.h:
cli/cli.h:
cli/../reports/render.h:
cli/../reports/charts.h:
cli/../reports/../core/buf.h:
cli/../reports/../core/fmt.h:
cli/../reports/../core/buf.h:
cli/../reports/../core/results.h:
cli/../reports/../core/gm_error.h:
cli/../reports/../core/results.h:
cli/../reports/runs.h:
cli/../reports/diff.h:
cli/../reports/../core/catalog.h:
cli/../core/results.h:
