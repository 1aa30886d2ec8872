#!/usr/bin/env python3
"""pty_drive.py [--timeout S] EXPECT SEND [EXPECT SEND ...] -- COMMAND [ARGS...]

Runs COMMAND on a pseudo-terminal, as a learner at a terminal would: when the output so far
(since the last answer) ends with the next step's EXPECT (a prompt waiting for input), it types
SEND (Python escapes: "2\\n"; "\\x03" is Ctrl-C, which the terminal turns into SIGINT). A step
whose EXPECT starts with "+" repeats: it answers every such prompt until the step after it
matches. Prints everything the command wrote, then exits with the command's exit status
(128 + N when signal N ended it, 124 on timeout)."""
import os, pty, select, sys, time

def main():
    args = sys.argv[1:]
    timeout = 60.0
    if args[:1] == ["--timeout"]:
        timeout, args = float(args[1]), args[2:]
    sep = args.index("--")
    steps = [(args[i], args[i + 1].encode().decode("unicode_escape").encode()) for i in range(0, sep, 2)]
    command = args[sep + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    out, pending, deadline = b"", b"", time.time() + timeout
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.1)
        if not r:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        pending += chunk
        send = None
        tail = pending.rstrip(b" ")
        ends = lambda expect: tail.endswith(expect.lstrip("+").rstrip(" ").encode())
        if len(steps) > 1 and steps[0][0].startswith("+") and ends(steps[1][0]):
            steps.pop(0)
        if steps and ends(steps[0][0]):
            send = steps[0][1] if steps[0][0].startswith("+") else steps.pop(0)[1]
        if send is not None:
            time.sleep(0.05)  # the prompt's read is posted
            os.write(fd, send)
            pending = b""
    else:
        os.kill(pid, 9)
        sys.stdout.write(out.decode(errors="replace") + "\n[pty_drive: timed out]\n")
        os.waitpid(pid, 0)
        return 124
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(out.decode(errors="replace"))
    if steps and not steps[0][0].startswith("+"):
        sys.stdout.write("\n[pty_drive: never saw %r]\n" % steps[0][0])
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)

sys.exit(main())
