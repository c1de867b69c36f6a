/* test_ci.c — the CI recipe of docs/ci.md (examples/ci/) on recorded runs,
 * without a GPU: tests/ci-recipe.sh runs the commands of the GitHub Actions
 * workflow and the GitLab CI job, with the collect step replaced by the
 * committed H100 runs and gh and curl replaced by scripts that record what
 * they would post. */
#include "helpers.h"

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

Test(ci_recipe, workflows_run_on_recorded_runs)
{
    char *script = gmt_src("tests/ci-recipe.sh");
    char *argv[] = {"/bin/sh", script, (char *)gmt_bin(), NULL};
    char *out = NULL, *err = NULL;
    int rc = gmt_run(argv, NULL, &out, &err);
    cr_expect_eq(rc, 0, "tests/ci-recipe.sh exit %d:\n%s\n%s", rc, out, err);
    gmt_assert_has(out, "ci-recipe: every check holds");
    gmt_assert_has(out, "ok   github pr, a rerun of the same commit: passes (exit 0)");
    gmt_assert_has(out, "ok   gitlab mr, the padding removed: fails (exit 1)");
    gmt_assert_has(out, "ok   gitlab mr: one verdict, the padded layout");
    free(out);
    free(err);
    free(script);
}

/* The workflows call the script the test runs, and keep the database it
 * writes. */
Test(ci_recipe, workflows_name_the_script_and_the_database)
{
    const char *files[] = {"examples/ci/github-actions.yml", "examples/ci/gitlab-ci.yml"};
    for (size_t i = 0; i < 2; i++) {
        char *p = gmt_src(files[i]);
        char *text = gmt_text(p);
        gmt_assert_has(text, "sh examples/ci/gpumem-ci.sh");
        gmt_assert_has(text, "gpumem-history.sqlite");
        gmt_assert_has(text, "gpumem-out/");
        free(text);
        free(p);
    }
}
