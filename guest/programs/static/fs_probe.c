/*
 * The read-only file tree of "emu run --root DIR", seen through libc.
 *   fs_probe cat PATH        print the file (read, lseek, fstat)
 *   fs_probe ls PATH         list a directory (getdents64), sorted
 *   fs_probe stat PATH       type, size, link target (stat, lstat, readlink)
 *   fs_probe mmap PATH       print the file through a read-only file mapping
 *   fs_probe open PATH...    try each path: "open PATH: ok" or the errno's name
 *   fs_probe write PATH...   try to open each for writing, and to create it
 * Every result is one line; errors are named, so glibc and musl print the same.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *err_name(int e)
{
    static char other[32];
    switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EROFS: return "EROFS";
    case ELOOP: return "ELOOP";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case EFAULT: return "EFAULT";
    case EMFILE: return "EMFILE";
    default:
        snprintf(other, sizeof other, "errno %d", e);
        return other;
    }
}

static int fail(const char *what, const char *path)
{
    printf("%s %s: %s\n", what, path, err_name(errno));
    return 1;
}

static int do_cat(const char *path)
{
    char buf[512];
    struct stat st;
    ssize_t n;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        return fail("open", path);
    if (fstat(fd, &st) != 0)
        return fail("fstat", path);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, stdout);
    off_t end = lseek(fd, 0, SEEK_END), mid = lseek(fd, st.st_size / 2, SEEK_SET);
    n = read(fd, buf, 1);
    printf("[size %lld, end %lld, byte at %lld: %d]\n", (long long)st.st_size,
           (long long)end, (long long)mid, n == 1 ? buf[0] : -1);
    close(fd);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int do_ls(const char *path)
{
    char *names[256];
    int n = 0;
    DIR *d = opendir(path);

    if (!d)
        return fail("opendir", path);
    for (struct dirent *e; n < 256 && (e = readdir(d));)
        names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; i++) {
        printf("%s\n", names[i]);
        free(names[i]);
    }
    return 0;
}

static int do_stat(const char *path)
{
    struct stat st, lst;
    char target[256];

    if (lstat(path, &lst) != 0)
        return fail("lstat", path);
    if (S_ISLNK(lst.st_mode)) {
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n < 0)
            return fail("readlink", path);
        target[n] = 0;
        printf("%s: symlink to %s\n", path, target);
    }
    if (stat(path, &st) != 0)
        return fail("stat", path);
    printf("%s: %s, %lld bytes, %s\n", path,
           S_ISDIR(st.st_mode) ? "directory" : S_ISREG(st.st_mode) ? "file" : "other",
           S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size,
           access(path, R_OK) == 0 ? "readable" : "not readable");
    return 0;
}

static int do_mmap(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        return fail("open", path);
    if (fstat(fd, &st) != 0 || st.st_size == 0)
        return fail("fstat", path);
    const char *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return fail("mmap", path);
    close(fd);
    fwrite(p, 1, (size_t)st.st_size, stdout);
    munmap((void *)p, (size_t)st.st_size);
    return 0;
}

static int do_open(const char *path)
{
    char buf[256];
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        return fail("open", path), 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    printf("open %s: ok: %s\n", path, buf);
    close(fd);
    return 0;
}

static int do_write(const char *path)
{
    int fd = open(path, O_WRONLY);

    if (fd >= 0)
        printf("open %s for writing: succeeded\n", path);
    else
        printf("open %s for writing: %s\n", path, err_name(errno));
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        printf("create %s: succeeded\n", path);
    else
        printf("create %s: %s\n", path, err_name(errno));
    return 0;
}

int main(int argc, char **argv)
{
    int status = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: fs_probe cat|ls|stat|mmap|open|write PATH...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        const char *cmd = argv[1], *path = argv[i];
        if (!strcmp(cmd, "cat"))
            status |= do_cat(path);
        else if (!strcmp(cmd, "ls"))
            status |= do_ls(path);
        else if (!strcmp(cmd, "stat"))
            status |= do_stat(path);
        else if (!strcmp(cmd, "mmap"))
            status |= do_mmap(path);
        else if (!strcmp(cmd, "open"))
            status |= do_open(path);
        else if (!strcmp(cmd, "write"))
            status |= do_write(path);
        else
            return 2;
    }
    return status;
}
