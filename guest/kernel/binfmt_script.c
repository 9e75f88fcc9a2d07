/*
 * "#!interpreter [argument]" scripts: the first line names the
 * interpreter and at most one argument (the rest of the line, its outer
 * blanks removed); argv becomes interpreter, [argument,] the script's
 * path, then the caller's argv[1...]. An interpreter may be a script
 * itself, MAX_INTERP deep (then ELOOP).
 */
#include "binfmt.h"
#include "file.h"
#include "sched.h"

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

long load_script(struct binprm *b)
{
    char line[BINPRM_BUF];
    uint32_t n = 0, i = 2, interp, interp_len, arg = 0, arg_len = 0;
    long err;

    if (++b->depth > MAX_INTERP)
        return -ELOOP;
    while (i < b->head_len && b->head[i] != '\n')
        line[n++] = (char)b->head[i++];
    /* A line longer than the head would cut the interpreter's name: refuse
     * that rather than run something else (Linux 5.x does the same). */
    if (i == b->head_len && b->head_len == BINPRM_BUF) {
        uint32_t k = 0;
        while (k < n && blank(line[k]))
            k++;
        while (k < n && !blank(line[k]))
            k++;
        if (k == n)
            return -ENOEXEC;
    }
    while (n && (blank(line[n - 1]) || line[n - 1] == '\r' || line[n - 1] == 0))
        n--;
    for (interp = 0; interp < n && blank(line[interp]); interp++)
        ;
    for (interp_len = 0; interp + interp_len < n && !blank(line[interp + interp_len]);
         interp_len++)
        ;
    if (interp_len == 0)
        return -ENOEXEC;
    for (arg = interp + interp_len; arg < n && blank(line[arg]); arg++)
        ;
    arg_len = n - arg;
    for (uint32_t k = 0; k < n; k++)
        if (line[k] == 0)
            return -ENOEXEC;

    remove_arg0(b);
    if ((err = prepend_arg(b, b->filename, b->filename_len)) != 0 ||
        (arg_len && (err = prepend_arg(b, line + arg, arg_len)) != 0) ||
        (err = prepend_arg(b, line + interp, interp_len)) != 0)
        return err;
    /* The interpreter's name stays readable in argv[0] for AT_EXECFN. */
    b->filename = b->args + b->start;
    b->filename_len = interp_len;
    if ((err = open_exec(b, current->cwd, b->filename, b->filename_len)) != 0 ||
        (err = read_head(b)) != 0)
        return err;
    return search_binary(b);
}
