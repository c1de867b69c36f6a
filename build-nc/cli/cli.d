build-nc/cli/cli.o: cli/cli.c cli/cli.h cli/../reports/render.h \
 cli/../reports/charts.h cli/../reports/../core/buf.h \
 cli/../reports/../core/fmt.h cli/../reports/../core/buf.h \
 cli/../reports/../core/results.h cli/../reports/../core/gm_error.h \
 cli/../reports/../core/gm_error.h cli/../reports/../core/results.h \
 cli/../reports/runs.h cli/../reports/diff.h \
 cli/../reports/../core/catalog.h cli/../core/buf.h cli/../core/pathpat.h \
 cli/../core/gm_error.h cli/../core/results.h
cli/cli.h:
cli/../reports/render.h:
cli/../reports/charts.h:
cli/../reports/../core/buf.h:
cli/../reports/../core/fmt.h:
cli/../reports/../core/buf.h:
cli/../reports/../core/results.h:
cli/../reports/../core/gm_error.h:
cli/../reports/../core/gm_error.h:
cli/../reports/../core/results.h:
cli/../reports/runs.h:
cli/../reports/diff.h:
cli/../reports/../core/catalog.h:
cli/../core/buf.h:
cli/../core/pathpat.h:
cli/../core/gm_error.h:
cli/../core/results.h:
