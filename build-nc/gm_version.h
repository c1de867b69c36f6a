#define GM_GIT_COMMIT "118cd60bd062afebe9b1c773c86ddd27a70288ff"
#define GM_GIT_DIRTY 1
