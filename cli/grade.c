/* grade.c: `croupier grade`, a whole cohort checked against the autograder
 * kit's suites (docs/autograder.md, "Grading a cohort"), and
 * `croupier grade --gradescope-bundle`, the same suites as a Gradescope
 * autograder.
 *
 * The suites come from the engine in-process (as `croupier cases` makes
 * them) and are written with the two Python files built into the binary
 * (cli/kit_harness.py, cli/kit_grade.py) into OUT/.croupier/, readable by
 * us alone. Each student is one process, `python3 kit_grade.py --student
 * JOB` (the parent side: it starts the student's code sandboxed, feeds it
 * the arguments, compares, and writes the student's reports, the JSON
 * record last and atomically). A student whose record is there with this
 * run's parameters is not graded again, so an interrupted run resumes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "game.h"
#include "kit.h"

extern const unsigned char kit_grade_py[];
extern const size_t kit_grade_py_len;

/* GRADE_NO_SANDBOX: kit_grade.py's exit status for --sandbox bwrap where
 * bubblewrap cannot run (its EXIT_NO_SANDBOX) */
enum { GRADE_FNS_MAX = 16, GRADE_NO_SANDBOX = 3 };

static void usage(FILE *f)
{
    fprintf(f,
        "usage: croupier grade --game G [--fn F ...] [--variant V] [--n N] [--seed S]\n"
        "                      [--module NAME] [--call-timeout S] [--timeout S] [--memory BYTES]\n"
        "                      [--sandbox auto|bwrap|none] [--jobs J] [--visibility V]\n"
        "                      --out DIR SUBMISSIONS\n"
        "       croupier grade --gradescope-bundle --game G [--fn F ...] [--variant V] [--n N]\n"
        "                      [--seed S] [--module NAME] [--visibility V] --out FILE.zip\n"
        "Check every student of SUBMISSIONS (a file <student>.py or a folder <student>/ each)\n"
        "against the suites of the game's functions, each student in a sandbox of its own, and\n"
        "write into DIR a report per student (students/S.txt, students/S.json), grades.csv,\n"
        "Gradescope's results.json per student (gradescope/S/results.json), cohort.json and\n"
        "cohort.html (per clause: how many students fail it). An interrupted run resumes.\n"
        "(docs/autograder.md, \"Grading a cohort\").\n\n"
        "  --game G          game id\n"
        "  --fn F            a function's short name (again for more; default: every function)\n"
        "  --variant V       the game's variant (default: its first)\n"
        "  --n N             cases a suite, 1..%d (default 100)\n"
        "  --seed S          0..2^53-1 (default 1)\n"
        "  --module NAME     in a student's folder, the module to grade (default: its only .py)\n"
        "  --call-timeout S  seconds a call, 0.01..600 (default 5)\n"
        "  --timeout S       wall-clock seconds a student has for one suite, 1..86400 (default 300;\n"
        "                    also its CPU seconds)\n"
        "  --memory BYTES    address space of the student's process (default 1G; K, M, G)\n"
        "  --sandbox M       auto (bubblewrap when it works here, else rlimits with a warning),\n"
        "                    bwrap (refuse to run without it), none (rlimits only)\n"
        "  --jobs J          students graded at once, 1..64 (default 1; the machine's cores is a\n"
        "                    good choice)\n"
        "  --visibility V    Gradescope's visibility of the results: visible (default), hidden,\n"
        "                    after_due_date, after_published\n"
        "  --out DIR         the output folder (with --gradescope-bundle: the zip file)\n"
        "  --gradescope-bundle  write Gradescope's autograder zip (setup.sh, run_autograder,\n"
        "                    the suites, the harness) instead of grading\n"
        "  -h, --help        this text\n\n"
        "Progress (students done, time left) goes to stderr. Exit status: 0 done; 2 bad\n"
        "arguments; 1 a failure (the message names it).\n", GAME_CASES_MAX);
}

/* SIGINT or SIGTERM: the running students' graders are killed, and the run
 * stops; what was written stays (the next run resumes). */
static volatile sig_atomic_t stopping;
static void on_stop(int sig) { stopping = sig; }

/* Start argv in a process group of its own: its pid, or -1. */
static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        execvp(argv[0], argv);
        fprintf(stderr, "croupier grade: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

/* pid's exit status (128 + signal when killed) once it ended, -1 while it
 * runs, -2 when it ran past `end` (then its process group is killed). */
static int reap(pid_t pid, double end)
{
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == 0 && cli_now() <= end)
        return -1;
    if (r != pid) {
        kill(-pid, SIGKILL);
        waitpid(pid, &st, 0);
        return -2;
    }
    kill(-pid, SIGKILL); /* anything it left behind */
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void nap(void)
{
    struct timespec t = {0, 20 * 1000 * 1000};
    nanosleep(&t, NULL);
}

/* Run argv to its end (killed after timeout_s): its exit status, -1 when
 * it could not start, -2 when it was late. */
static int run_wait(char *const argv[], double timeout_s)
{
    pid_t pid = spawn(argv);
    if (pid < 0)
        return -1;
    double end = cli_now() + timeout_s;
    int st;
    while ((st = reap(pid, end)) == -1)
        nap();
    return st;
}

typedef struct grade_opts {
    const game_ops *ops;
    const game_suite *suites[GRADE_FNS_MAX];
    int nsuites;
    const char *variant, *module, *out, *sandbox, *visibility;
    long long n, seed, timeout, memory, jobs;
    double call_timeout;
} grade_opts;

/* The suites, the harness and the grader into dir (mode 0600: the expected
 * answers are ours alone); names of the suite files into names. */
static int write_kit(const grade_opts *o, const char *dir, json_t *names)
{
    char path[CLI_PATH];
    cli_pathf(path, sizeof path, "%s/kit_harness.py", dir);
    if (cli_write_file(path, kit_harness_py, kit_harness_py_len, 0600))
        return -1;
    cli_pathf(path, sizeof path, "%s/kit_grade.py", dir);
    if (cli_write_file(path, kit_grade_py, kit_grade_py_len, 0600))
        return -1;
    for (int i = 0; i < o->nsuites; i++) {
        const game_suite *s = o->suites[i];
        char *text;
        size_t len;
        const char *media;
        game_err e = {0};
        if (kit_render(o->ops, s, (uint64_t)o->seed, (int)o->n, "json", 0, &text, &len, &media, &e)) {
            fprintf(stderr, "croupier grade: %s\n", e.detail);
            return -1;
        }
        char name[256];
        snprintf(name, sizeof name, "suite-%s-%s.json", s->fn, s->variant);
        cli_pathf(path, sizeof path, "%s/%s", dir, name);
        int rc = cli_write_file(path, text, len, 0600);
        free(text);
        if (rc)
            return -1;
        json_array_append_new(names, json_string(name));
    }
    return 0;
}

static json_t *params_of(const grade_opts *o)
{
    json_t *fns = json_array();
    for (int i = 0; i < o->nsuites; i++)
        json_array_append_new(fns, json_string(o->suites[i]->fn));
    return json_pack("{s:s,s:o,s:s,s:I,s:I,s:s?}", "game", o->ops->name, "fns", fns, "variant", o->variant, "n",
                     (json_int_t)o->n, "seed", (json_int_t)o->seed, "module", o->module);
}

static json_t *limits_of(const grade_opts *o)
{
    return json_pack("{s:f,s:f,s:I,s:I}", "call_timeout", o->call_timeout, "wall", (double)o->timeout, "cpu",
                     (json_int_t)o->timeout, "memory", (json_int_t)o->memory);
}

/* Whether the record at path was graded with these params; *bwrap (when
 * given) set when bubblewrap made its sandbox. */
static int done_before(const char *path, const json_t *params, int *bwrap)
{
    json_t *rec = json_load_file(path, 0, NULL);
    int same = rec && json_equal(json_object_get(rec, "params"), params);
    if (bwrap && same) {
        const char *kind = json_string_value(json_object_get(rec, "sandbox"));
        *bwrap = kind && !strcmp(kind, "bwrap");
    }
    json_decref(rec);
    return same;
}

static void hms(double s, char *out, size_t n)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* A student's grader under way. Run by root, the student's code runs as
 * uid CLI_UID_BASE + slot, a uid of its own among those running at once, so
 * RLIMIT_NPROC (counted per uid) bounds each student apart. */
struct child {
    pid_t pid;
    int i, slot;
    double end;
    char job[CLI_PATH], rec[CLI_PATH];
};

static int free_slot(const struct child *kids, int nrun, int jobs)
{
    for (int s = 0; s < jobs; s++) {
        int used = 0;
        for (int k = 0; k < nrun; k++)
            used |= kids[k].slot == s;
        if (!used)
            return s;
    }
    return 0;
}

static int grade(const grade_opts *o, const char *subs)
{
    char kitdir[CLI_PATH], path[CLI_PATH], sdir[CLI_PATH];
    char *out = cli_make_dir(o->out, 0755) ? NULL : realpath(o->out, NULL);
    if (!out || strlen(out) > CLI_PATH / 2 || strlen(subs) > CLI_PATH / 2) {
        fprintf(stderr, "croupier grade: cannot make %s: %s\n", o->out, out ? "the path is too long" : strerror(errno));
        free(out);
        return 1;
    }
    cli_pathf(kitdir, sizeof kitdir, "%s/.croupier", out);
    cli_pathf(sdir, sizeof sdir, "%s/students", out);
    cli_pathf(path, sizeof path, "%s/gradescope", out);
    json_t *names = json_array(), *params = params_of(o), *students = json_array();
    int rc = 1;
    char **sv = NULL, **pv = NULL;
    int ns = 0;
    if (cli_make_dir(kitdir, 0700) || chmod(kitdir, 0700) || cli_make_dir(sdir, 0755) || cli_make_dir(path, 0755) ||
        write_kit(o, kitdir, names)) {
        fprintf(stderr, "croupier grade: cannot write into %s: %s\n", out, strerror(errno));
        goto done;
    }
    if (cli_list_students("grade", subs, &sv, &pv, &ns)) {
        fprintf(stderr, "croupier grade: cannot read %s: %s\n", subs, strerror(errno));
        goto done;
    }
    if (!ns) {
        fprintf(stderr, "croupier grade: %s holds no submission (<student>.py or <student>/)\n", subs);
        goto done;
    }
    json_t *suites = json_array();
    for (size_t i = 0; i < json_array_size(names); i++) {
        cli_pathf(path, sizeof path, "%s/%s", kitdir, json_string_value(json_array_get(names, i)));
        json_array_append_new(suites, json_string(path));
    }
    char grader[CLI_PATH], harness[CLI_PATH];
    cli_pathf(grader, sizeof grader, "%s/kit_grade.py", kitdir);
    cli_pathf(harness, sizeof harness, "%s/kit_harness.py", kitdir);
    int resumed = 0, graded = 0, failed = 0, finished = 0, next = 0, nrun = 0;
    int uids = cli_hold_uids("grade", (int)o->jobs);
    double t0 = cli_now();
    struct child *kids = calloc((size_t)o->jobs, sizeof *kids);
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int nosandbox = 0;
    int probed = 0; /* bubblewrap made a student's sandbox here: the next ones skip its probe */
    while (kids && ((next < ns && !nosandbox) || nrun) && !stopping) {
        int changed = 0;
        while (nrun < o->jobs && next < ns && !nosandbox) {
            int i = next++;
            struct child *k = &kids[nrun];
            cli_pathf(k->rec, sizeof k->rec, "%s/%s.json", sdir, sv[i]);
            json_array_append_new(students, json_string(sv[i]));
            if (done_before(k->rec, params, NULL)) {
                resumed++;
                finished++;
                changed = 1;
                continue;
            }
            char txt[CLI_PATH], gs[CLI_PATH];
            cli_pathf(txt, sizeof txt, "%s/%s.txt", sdir, sv[i]);
            cli_pathf(gs, sizeof gs, "%s/gradescope/%s/results.json", out, sv[i]);
            cli_pathf(k->job, sizeof k->job, "%s/job-%s.json", kitdir, sv[i]);
            k->slot = free_slot(kids, nrun, (int)o->jobs);
            json_t *j = json_pack("{s:s,s:s,s:s?,s:O,s:s,s:s,s:O,s:o,s:{s:s,s:s,s:s},s:i,s:s}", "student", sv[i],
                                  "submission", pv[i], "module", o->module, "suites", suites, "harness", harness,
                                  "sandbox", probed ? "bwrap-probed" : o->sandbox, "params", params, "limits", limits_of(o), "out", "json",
                                  k->rec, "text", txt, "gradescope", gs, "uid", CLI_UID_BASE + k->slot, "visibility",
                                  o->visibility);
            int w = cli_write_json(k->job, j, 0600);
            json_decref(j);
            char *argv[] = {(char *)cli_python(), grader, "--student", k->job, NULL};
            k->pid = w ? -1 : spawn(argv);
            if (k->pid < 0) {
                fprintf(stderr, "croupier grade: %s: cannot start the grader: %s\n", sv[i], strerror(errno));
                failed++;
                finished++;
                changed = 1;
                continue;
            }
            k->i = i;
            k->end = cli_now() + (double)o->timeout * o->nsuites * 1.5 + 60;
            nrun++;
        }
        for (int k = 0; k < nrun; k++) {
            int st = reap(kids[k].pid, kids[k].end);
            if (st == -1)
                continue;
            graded++;
            finished++;
            changed = 1;
            unlink(kids[k].job);
            if (st == GRADE_NO_SANDBOX) { /* it said why, in one line: no student can be graded */
                nosandbox = 1;
                failed++;
            } else if (st != 0 || !done_before(kids[k].rec, params, strcmp(o->sandbox, "none") ? &probed : NULL)) {
                fprintf(stderr, "croupier grade: %s: the grader failed (status %d); graded again next run\n",
                        sv[kids[k].i], st);
                failed++;
            }
            kids[k--] = kids[--nrun];
        }
        if (changed) {
            char left[32];
            int todo = ns - finished;
            hms(graded ? (cli_now() - t0) / graded * todo : 0, left, sizeof left);
            fprintf(stderr, "croupier grade: %d/%d students done (%d from an earlier run), %s left\n", finished,
                    ns, resumed, graded || !todo ? left : "?");
        } else {
            nap();
        }
    }
    for (int k = 0; k < nrun; k++) { /* stopped: the graders under way */
        kill(-kids[k].pid, SIGKILL);
        waitpid(kids[k].pid, NULL, 0);
        unlink(kids[k].job);
    }
    free(kids);
    if (uids >= 0)
        close(uids); /* the students of this run are gone: the uids are free */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (stopping) {
        fprintf(stderr, "croupier grade: stopped by signal %d: %d of %d students done; the same command "
                "resumes\n", (int)stopping, finished, ns);
        json_decref(suites);
        rc = 128 + stopping;
        goto done;
    }
    json_decref(suites);
    json_t *run = json_pack("{s:O,s:O,s:s}", "params", params, "students", students, "out", out);
    cli_pathf(path, sizeof path, "%s/run.json", kitdir);
    int w = cli_write_json(path, run, 0600);
    json_decref(run);
    char *argv[] = {(char *)cli_python(), grader, "--cohort", path, NULL};
    if (nosandbox) {
        fprintf(stderr, "croupier grade: stopped: --sandbox bwrap and bubblewrap cannot run here (--sandbox auto "
                "grades with rlimits only)\n");
    } else if (failed) {
        fprintf(stderr, "croupier grade: %d students could not be graded; run again to retry them\n", failed);
    } else if (w || run_wait(argv, 3600) != 0) {
        fprintf(stderr, "croupier grade: writing grades.csv and the cohort's table failed\n");
    } else {
        printf("croupier grade: %d students (%d graded now, %d from an earlier run): %s/grades.csv, "
               "%s/cohort.html\n", ns, graded, resumed, out, out);
        rc = 0;
    }
done:
    for (int i = 0; i < ns; i++) {
        free(sv[i]);
        free(pv[i]);
    }
    free(sv);
    free(pv);
    json_decref(names);
    json_decref(params);
    json_decref(students);
    free(out);
    return rc;
}

static const char setup_sh[] =
    "#!/usr/bin/env bash\n"
    "# Gradescope's setup: Python 3 (the suites need its standard library alone) and\n"
    "# bubblewrap, the sandbox (without it the student's code runs with rlimits only).\n"
    "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 bubblewrap || true\n";

static const char run_autograder[] =
    "#!/usr/bin/env bash\n"
    "# Gradescope runs this for each submission: /autograder/submission graded with the\n"
    "# suites in /autograder/source, /autograder/results/results.json written.\n"
    "# CROUPIER_AUTOGRADER_ROOT stands for /autograder (tests).\n"
    "root=${CROUPIER_AUTOGRADER_ROOT:-/autograder}\n"
    "exec python3 \"$root/source/kit_grade.py\" --gradescope \"$root\"\n";

static int bundle(const grade_opts *o)
{
    char dir[] = "/tmp/croupier-bundle-XXXXXX", path[CLI_PATH];
    if (!mkdtemp(dir)) {
        fprintf(stderr, "croupier grade: cannot make a temporary folder: %s\n", strerror(errno));
        return 1;
    }
    json_t *names = json_array();
    int rc = 1;
    if (write_kit(o, dir, names))
        goto done;
    json_t *conf = json_pack("{s:o,s:O,s:s?,s:o,s:s,s:s}", "params", params_of(o), "suites", names, "module",
                             o->module, "limits", limits_of(o), "sandbox", o->sandbox, "visibility", o->visibility);
    cli_pathf(path, sizeof path, "%s/grade.json", dir);
    int w = cli_write_json(path, conf, 0644);
    json_decref(conf);
    cli_pathf(path, sizeof path, "%s/setup.sh", dir);
    w |= cli_write_file(path, setup_sh, sizeof setup_sh - 1, 0755);
    cli_pathf(path, sizeof path, "%s/run_autograder", dir);
    w |= cli_write_file(path, run_autograder, sizeof run_autograder - 1, 0755);
    cli_pathf(path, sizeof path, "%s/kit_grade.py", dir);
    char *argv[] = {(char *)cli_python(), path, "--zip", dir, (char *)o->out, NULL};
    if (w || run_wait(argv, 600) != 0) {
        fprintf(stderr, "croupier grade: writing %s failed\n", o->out);
        goto done;
    }
    printf("croupier grade: %s: Gradescope's autograder, %d suites of %lld cases\n", o->out, o->nsuites, o->n);
    rc = 0;
done:
    json_decref(names);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            cli_pathf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
    return rc;
}

int cmd_grade(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, 0, 'g'},         {"fn", required_argument, 0, 'f'},
        {"n", required_argument, 0, 'n'},            {"seed", required_argument, 0, 's'},
        {"variant", required_argument, 0, 'v'},      {"out", required_argument, 0, 'o'},
        {"module", required_argument, 0, 'm'},       {"call-timeout", required_argument, 0, 'c'},
        {"timeout", required_argument, 0, 't'},      {"memory", required_argument, 0, 'M'},
        {"sandbox", required_argument, 0, 'S'},      {"gradescope-bundle", no_argument, 0, 'B'},
        {"jobs", required_argument, 0, 'j'},         {"visibility", required_argument, 0, 'V'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    grade_opts o = {.n = 100, .seed = 1, .timeout = 300, .memory = 1LL << 30, .call_timeout = 5, .jobs = 1,
                    .sandbox = "auto", .visibility = "visible"};
    const char *game = NULL, *fns[GRADE_FNS_MAX];
    int nfns = 0, bundle_mode = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': game = optarg; break;
        case 'f':
            if (nfns == GRADE_FNS_MAX) {
                fprintf(stderr, "croupier grade: at most %d --fn\n", GRADE_FNS_MAX);
                return 2;
            }
            fns[nfns++] = optarg;
            break;
        case 'v': o.variant = optarg; break;
        case 'o': o.out = optarg; break;
        case 'm':
            if (!cli_name_ok(optarg)) {
                fprintf(stderr, "croupier grade: --module takes a module's name (letters, digits, '_')\n");
                return 2;
            }
            o.module = optarg;
            break;
        case 'B': bundle_mode = 1; break;
        case 'V':
            if (strcmp(optarg, "visible") && strcmp(optarg, "hidden") && strcmp(optarg, "after_due_date") &&
                strcmp(optarg, "after_published")) {
                fprintf(stderr, "croupier grade: --visibility takes visible, hidden, after_due_date or "
                                "after_published\n");
                return 2;
            }
            o.visibility = optarg;
            break;
        case 'S':
            if (strcmp(optarg, "auto") && strcmp(optarg, "bwrap") && strcmp(optarg, "none")) {
                fprintf(stderr, "croupier grade: --sandbox takes auto, bwrap or none\n");
                return 2;
            }
            o.sandbox = optarg;
            break;
        case 'n':
            if (cli_number(optarg, 1, GAME_CASES_MAX, &o.n)) {
                fprintf(stderr, "croupier grade: --n takes 1..%d\n", GAME_CASES_MAX);
                return 2;
            }
            break;
        case 's':
            if (cli_number(optarg, 0, (1LL << 53) - 1, &o.seed)) {
                fprintf(stderr, "croupier grade: --seed takes 0..2^53-1\n");
                return 2;
            }
            break;
        case 'j':
            if (cli_number(optarg, 1, 64, &o.jobs)) {
                fprintf(stderr, "croupier grade: --jobs takes 1..64\n");
                return 2;
            }
            break;
        case 't':
            if (cli_number(optarg, 1, 86400, &o.timeout)) {
                fprintf(stderr, "croupier grade: --timeout takes 1..86400 seconds\n");
                return 2;
            }
            break;
        case 'M':
            if (cli_bytes(optarg, 1LL << 40, &o.memory) || o.memory < (64LL << 20)) {
                fprintf(stderr, "croupier grade: --memory takes 64M..1T\n");
                return 2;
            }
            break;
        case 'c': {
            char *end;
            errno = 0;
            o.call_timeout = strtod(optarg, &end);
            if (errno || *end || end == optarg || !(o.call_timeout >= 0.01 && o.call_timeout <= 600)) {
                fprintf(stderr, "croupier grade: --call-timeout takes 0.01..600 seconds\n");
                return 2;
            }
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (bundle_mode ? optind < argc : optind + 1 < argc) {
        fprintf(stderr, "croupier grade: unexpected argument '%s'\n", argv[bundle_mode ? optind : optind + 1]);
        return 2;
    }
    if (!bundle_mode && optind >= argc) {
        fprintf(stderr, "croupier grade: SUBMISSIONS, the folder of submissions, is required\n");
        return 2;
    }
    if (!game || !o.out) {
        fprintf(stderr, "croupier grade: --game and --out are required\n");
        return 2;
    }
    if (!(o.ops = game_find(game))) {
        fprintf(stderr, "croupier grade: unknown game '%s' (croupier games lists them)\n", game);
        return 2;
    }
    if (o.variant && !game_has_variant(o.ops, o.variant)) {
        fprintf(stderr, "croupier grade: unknown variant '%s' of %s\n", o.variant, o.ops->name);
        return 2;
    }
    if (!o.variant)
        o.variant = o.ops->variants[0];
    for (int i = 0; i < nfns; i++) {
        const game_suite *s = game_suite_find(o.ops, fns[i], o.variant);
        if (!s) {
            fprintf(stderr, "croupier grade: %s has no suite of '%s' in variant %s (croupier cases --list)\n",
                    o.ops->name, fns[i], o.variant);
            return 2;
        }
        for (int k = 0; k < o.nsuites; k++)
            if (o.suites[k] == s)
                s = NULL;
        if (s)
            o.suites[o.nsuites++] = s;
    }
    for (int i = 0; !nfns && i < o.ops->nsuites && o.nsuites < GRADE_FNS_MAX; i++)
        if (strcmp(o.ops->suites[i].variant, o.variant) == 0)
            o.suites[o.nsuites++] = &o.ops->suites[i];
    if (!o.nsuites) {
        fprintf(stderr, "croupier grade: %s has no suites (croupier cases --list)\n", o.ops->name);
        return 2;
    }
    return bundle_mode ? bundle(&o) : grade(&o, argv[optind]);
}
