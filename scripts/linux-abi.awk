# awk -f scripts/linux-abi.awk guest/linux_abi.def > $(BUILD)/gen/linux_abi.h
#
# The rows of guest/linux_abi.def as #defines: LINUX_<name> always, and
# <name> too when compiled for the guest (SYSEMU_GUEST). Refuses, with the
# file and line, a malformed row and a name given twice.

function fail(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    failed = 1
    exit 1
}

BEGIN { rows = 0 }

in_comment {
    if (index($0, "*/"))
        in_comment = 0
    next
}
index($0, "/*") && !index($0, "*/") {
    in_comment = 1
    next
}

/^K?ABI\(/ {
    row = $0
    sub(/^K?ABI\(/, "", row)
    if (row !~ /\)[ \t]*$/)
        fail("a row ends with ')' on its own line")
    sub(/\)[ \t]*$/, "", row)
    n = split(row, field, ",")
    for (i = 1; i <= n; i++)
        gsub(/^[ \t]+|[ \t]+$/, "", field[i])
    name = field[1]; value = field[2]
    if (n != 2 || name !~ /^[A-Za-z_][A-Za-z0-9_]*$/ ||
        value !~ /^-?(0x[0-9a-fA-F]+|[0-9]+)$/)
        fail("malformed row: want ABI(name, number) or KABI(name, number)")
    if (name in seen)
        fail(name " is given twice")
    seen[name] = 1
    names[rows] = name
    values[rows++] = value ~ /^-/ ? "(" value ")" : value
    next
}

/^[ \t]+K?ABI/ {
    fail("a row starts at the beginning of its line")
}

END {
    if (failed)
        exit 1
    if (!rows) {
        printf "%s: no ABI rows\n", FILENAME > "/dev/stderr"
        exit 1
    }
    print "/* Generated from guest/linux_abi.def by scripts/linux-abi.awk: do not edit. */"
    print "#ifndef SYSEMU_LINUX_ABI_H"
    print "#define SYSEMU_LINUX_ABI_H"
    for (i = 0; i < rows; i++)
        printf "#define LINUX_%s %s\n", names[i], values[i]
    print "#ifdef SYSEMU_GUEST"
    for (i = 0; i < rows; i++)
        printf "#define %s LINUX_%s\n", names[i], names[i]
    print "#endif"
    print "#endif"
}
