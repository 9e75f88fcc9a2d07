# scripts/validate-summary.awk: the rows of `emu compare --validate`
# (make validate) again, one line per operation: microseconds at the
# published clock on each model with and without SEP, the published figure
# and the verdict of the run without SEP (the published figures are
# int $0x80 ones).
function us(line,    s) {
    s = line
    sub(/.* cycles = /, "", s)
    sub(/ us at .*/, "", s)
    return s
}
function published(line,    s) {
    s = line
    if (s ~ /no figure published/)
        return "-"
    sub(/.*; published /, "", s)
    sub(/ \[.*/, "", s)
    return s
}
function verdict(line,    s) {
    if (line ~ /no figure published/)
        return "-"
    s = line
    sub(/.*: /, "", s)
    return s
}
/^[a-zA-Z].*: / && !/^emu compare:/ {
    row = $0
    sub(/:.*/, "", row)
    rows[++n] = row
    next
}
/^  pentium[34] / {
    cpu = $1
    sysenter[n, cpu] = us($0)
    next
}
/^  pentium[34],-sep / {
    cpu = $1
    sub(/,-sep/, "", cpu)
    int80[n, cpu] = us($0)
    pub[n, cpu] = published($0)
    verd[n, cpu] = verdict($0)
}
END {
    printf "\nsummary, in us (the published figure is compared with the int80 run):\n\n"
    printf "%-12s | %-28s %-28s %-10s %-9s | %-28s %-28s %-10s %s\n", "", "P4 sysenter",
           "P4 int80", "Mau P4", "", "P3 sysenter", "P3 int80", "Marathe", ""
    for (i = 1; i <= n; i++)
        printf "%-12s | %-28s %-28s %-10s %-9s | %-28s %-28s %-10s %s\n", rows[i],
               sysenter[i, "pentium4"], int80[i, "pentium4"], pub[i, "pentium4"],
               verd[i, "pentium4"], sysenter[i, "pentium3"], int80[i, "pentium3"],
               pub[i, "pentium3"], verd[i, "pentium3"]
}
