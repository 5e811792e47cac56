/* cohort.c: what `croupier grade` and a league of the students' bots (to come) share: the
 * submissions folder (a file <student>.py or a folder <student>/ each),
 * files written atomically, python3, and the students' uids (held by one
 * run as root at a time). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* A path into buf; the lengths are checked where the parts come in (a
 * folder's path at most CLI_PATH / 2), so a cut path is a bug: an empty
 * string, which no open() takes. */
void cli_pathf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cli_pathf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= n)
        buf[0] = 0;
}

int cli_write_file(const char *path, const void *p, size_t n, mode_t mode)
{
    char tmp[CLI_PATH + 16];
    cli_pathf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            unlink(tmp);
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    if (fchmod(fd, mode) || close(fd) || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int cli_write_json(const char *path, const json_t *v, mode_t mode)
{
    char *s = json_dumps(v, JSON_INDENT(1));
    int rc = s ? cli_write_file(path, s, strlen(s), mode) : -1;
    free(s);
    return rc;
}

int cli_make_dir(const char *path, mode_t mode)
{
    if (mkdir(path, mode) == 0 || errno == EEXIST) {
        struct stat st;
        return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
    }
    return -1;
}

json_t *cli_json_round(double v, int places)
{
    double m = pow(10, places);
    return json_real(round(v * m) / m);
}

double cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

const char *cli_python(void)
{
    /* the system's Python where there is one (it is what the sandbox runs
     * the students on): a python3 found first on PATH may be a wrapper
     * (pyenv's shim, a shell script, costs 0.2 s of CPU a start: a
     * minute of a cohort's grading) */
    const char *p = getenv("CROUPIER_PYTHON");
    if (p && *p)
        return p;
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

int cli_name_ok(const char *s)
{
    if (!*s || *s == '.' || strlen(s) > 100)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-' || *s == '.'))
            return 0;
    return 1;
}

static int cli_by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The students of dir: names (sorted), and for each its submission path. */
int cli_list_students(const char *cmd, const char *dir, char ***names, char ***paths, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char full[CLI_PATH];
        struct stat st;
        if (e->d_name[0] == '.' || strcmp(e->d_name, "__pycache__") == 0) /* Python's cache of a folder run */
            continue;
        cli_pathf(full, sizeof full, "%s/%s", dir, e->d_name);
        if (lstat(full, &st))
            continue;
        size_t len = strlen(e->d_name);
        char name[256];
        if (S_ISREG(st.st_mode) && len > 3 && strcmp(e->d_name + len - 3, ".py") == 0)
            snprintf(name, sizeof name, "%.*s", (int)(len - 3), e->d_name);
        else if (S_ISDIR(st.st_mode))
            snprintf(name, sizeof name, "%s", e->d_name);
        else
            continue;
        if (!cli_name_ok(name)) {
            fprintf(stderr, "croupier %s: skipped '%s': a student's name is letters, digits, '_', '-', '.'\n",
                    cmd, e->d_name);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, cli_by_name);
    *names = calloc((size_t)n + 1, sizeof **names);
    *paths = calloc((size_t)n + 1, sizeof **paths);
    int m = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(v[i]);
        char *name = strdup(v[i]);
        if (len > 3 && strcmp(v[i] + len - 3, ".py") == 0)
            name[len - 3] = 0;
        if (m && strcmp((*names)[m - 1], name) == 0) { /* both a.py and a/: the folder wins */
            fprintf(stderr, "croupier %s: '%s' is both a file and a folder: %s taken\n", cmd, name, v[i]);
            free((*names)[m - 1]);
            free((*paths)[m - 1]);
            m--;
        }
        char full[CLI_PATH];
        cli_pathf(full, sizeof full, "%s/%s", dir, v[i]);
        char *real = realpath(full, NULL);
        (*names)[m] = name;
        (*paths)[m++] = real ? real : strdup(full);
        free(v[i]);
    }
    free(v);
    *count = m;
    return 0;
}

/* The students' uids belong to one run at a time: each run kills every
 * process of a uid when its student is done (what escaped the grader), so
 * a second run as root on the machine would kill the first one's students.
 * It waits for the first to end (an flock, released when the process ends
 * however it ends). Returns the lock's descriptor, or -1 when not root. */
static const char *cli_uid_lock_path(void)
{
    return access("/run/lock", W_OK) == 0 ? "/run/lock/croupier-grade.lock" : "/tmp/croupier-grade.lock";
}

int cli_hold_uids(const char *cmd, int jobs)
{
    if (geteuid() != 0)
        return -1;
    const char *p = cli_uid_lock_path();
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        fprintf(stderr, "croupier %s: cannot open %s (%s): another run as root could share the students' "
                "uids\n", cmd, p, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    fprintf(stderr, "croupier %s: another croupier grade or league runs as root here and holds the students' "
            "uids (%d..%d): waiting for it to end\n", cmd, CLI_UID_BASE, CLI_UID_BASE + jobs - 1);
    while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
        ;
    return fd;
}

