build-nc/cli/cmd_render.o: cli/cmd_render.c cli/cli.h \
 cli/../reports/render.h cli/../reports/charts.h \
 cli/../reports/../core/buf.h cli/../reports/../core/fmt.h \
 cli/../reports/../core/buf.h cli/../reports/../core/results.h \
 cli/../reports/../core/gm_error.h cli/../reports/../core/gm_error.h \
 cli/../reports/../core/results.h cli/../reports/runs.h \
 cli/../reports/diff.h cli/../reports/../core/catalog.h \
 cli/../reports/diff.h cli/../core/results.h
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
cli/../reports/diff.h:
cli/../core/results.h:
