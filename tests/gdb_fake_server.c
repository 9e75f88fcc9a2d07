/*
 * The GDB stub over the fake machine (gdb_fake.h), for driving Debian's
 * gdb against it (tests/test_gdbstub.c) or by hand:
 *
 *   build/tests/gdb_fake_server [--wait] [--spin] [[HOST:]PORT]
 *
 * Listens on 127.0.0.1 and an ephemeral port unless told otherwise,
 * prints "port N", runs the fake program under the stub and prints how
 * it ended: "exit S" or "killed", then "insns N".
 */
#include <stdio.h>
#include <string.h>
#include "gdb_fake.h"

int main(int argc, char **argv)
{
    static struct fake f;
    const char *spec = "127.0.0.1:0";
    bool wait = false;
    char err[256];

    fake_init(&f);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--wait"))
            wait = true;
        else if (!strcmp(argv[i], "--spin"))
            f.spin_at = FAKE_NINSNS - 1;
        else
            spec = argv[i];
    }
    struct gdb_stub *g = gdb_listen(spec, &f.target, err, sizeof err);
    if (!g) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    printf("port %u\n", gdb_port(g));
    fflush(stdout);
    int rc = fake_machine(&f, g, wait);
    if (rc == FAKE_KILLED)
        printf("killed\n");
    else
        printf("exit %d\n", rc);
    printf("insns %llu\n", (unsigned long long)f.insns);
    gdb_close(g);
    return 0;
}
