# awk -f scripts/syscall-nr.awk guest/syscalls.def > $(BUILD)/gen/syscall_nr.h
#
# The system-call numbers of guest/syscalls.def as #defines that C and
# assembly both read: SYS_<name> for each row, and NR_syscalls, one more
# than the highest number (the size of the kernel's table). Refuses, with
# the file and line, a malformed row, a number or a name given twice, rows
# out of order, and an argument count that differs from the kinds given.

function fail(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    failed = 1
    exit 1
}

# Rows inside a comment are not rows (the C preprocessor never sees them).
in_comment {
    if (index($0, "*/"))
        in_comment = 0
    next
}
index($0, "/*") && !index($0, "*/") {
    in_comment = 1
    next
}

/^SYSCALL\(/ {
    row = $0
    sub(/^SYSCALL\(/, "", row)
    if (row !~ /\)[ \t]*$/)
        fail("a row ends with ')' on its own line")
    sub(/\)[ \t]*$/, "", row)
    n = split(row, field, ",")
    for (i = 1; i <= n; i++)
        gsub(/^[ \t]+|[ \t]+$/, "", field[i])
    nr = field[1]; name = field[2]; nargs = field[3]; handler = field[4]
    if (n < 4 || nr !~ /^[0-9]+$/ || name !~ /^[A-Za-z_][A-Za-z0-9_]*$/ ||
        nargs !~ /^[0-6]$/ || handler !~ /^[A-Za-z_][A-Za-z0-9_]*$/)
        fail("malformed row: want SYSCALL(number, name, argument count, handler, kinds...)")
    for (i = 5; i <= n; i++)
        if (field[i] !~ /^[A-Z_][A-Z0-9_]*$/)
            fail(name ": kind '" field[i] "' is not a kind name")
    if (n - 4 != nargs + 0)
        fail(name ": " nargs " arguments but " (n - 4) " kinds")
    if (nr in number_of)
        fail("number " nr " is given twice")
    if (name in seen)
        fail(name " is given twice")
    if (rows && nr + 0 <= last + 0)
        fail(name ": rows go in order of number (" nr " after " last ")")
    number_of[nr] = name
    seen[name] = 1
    line[rows++] = sprintf("#define SYS_%s %d", name, nr)
    last = nr
    next
}

/^[ \t]*SYSCALL/ {
    fail("a row starts at the beginning of its line")
}

END {
    if (failed)
        exit 1
    if (!rows) {
        printf "%s: no SYSCALL rows\n", FILENAME > "/dev/stderr"
        exit 1
    }
    print "/* Generated from guest/syscalls.def by scripts/syscall-nr.awk: do not edit. */"
    print "#ifndef SYSEMU_SYSCALL_NR_H"
    print "#define SYSEMU_SYSCALL_NR_H"
    for (i = 0; i < rows; i++)
        print line[i]
    printf "#define NR_syscalls %d\n", last + 1
    print "#endif"
}
