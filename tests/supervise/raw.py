"""Raw system calls from a dynamically linked program: a syscall
instruction in memory this script maps itself, past libc (and its syscall()
wrapper, which the shim hooks) and so past the shim, as a program with its
own syscall layer (Bun, Go, Rust's rustix) makes them (RAW_VIA_PAGE=1: through
the shim's syscall page, as a program aimed at libjail could). x86_64. Prints
"ok ..." or "err ERRNO_NAME".
  raw.py open PATH r|w|creat     openat(AT_FDCWD, PATH, flags) (creat: 0666)
  raw.py read PATH               openat, then the first line read from it
  raw.py cloexec PATH            openat(O_CLOEXEC): is FD_CLOEXEC set on the fd
  raw.py mkdir PATH | unlink PATH | rename A B
  raw.py stat PATH | statx PATH  newfstatat / statx: the size the kernel (or the
                                 supervisor, through this process's memory) wrote
  raw.py fstat PATH              newfstatat(fd, "", AT_EMPTY_PATH) on an open fd
  raw.py readlink PATH           readlinkat: the link's text
  raw.py io_uring                io_uring_setup(8, params)
  raw.py handle                  open_by_handle_at(AT_FDCWD, a zeroed handle, 0)
  raw.py beneath PATH            openat2(".", PATH, {O_RDONLY, RESOLVE_BENEATH})
  raw.py emfile                  with the descriptor limit lowered, raw opens until one fails
  raw.py connect-unix PATH       connect to the unix socket at PATH
  raw.py statfs PATH             statfs: the block size the kernel (or the supervisor) wrote
  raw.py setxattr PATH NAME VALUE | getxattr PATH NAME | lgetxattr PATH NAME
  raw.py listxattr PATH | removexattr PATH NAME | getxattrat PATH NAME
                                 extended attributes (getxattrat: Linux 6.13's form)
  raw.py sendto DEST TEXT        a datagram to DEST: a path socket, @NAME (abstract), HOST:PORT
                                 (UDP) or unspec:HOST:PORT (UDP, the address's family AF_UNSPEC)
  raw.py sendmsg DEST TEXT [FILE]  the same with sendmsg, passing FILE's descriptor (SCM_RIGHTS;
                                 RAW_CMSG_LEN: the length its header claims)
  raw.py ask-forge SOCK TEXT     connect to SOCK through the shim's page, then send TEXT past it
  raw.py sendmmsg DEST TEXT [DEST TEXT]...  the messages in one sendmmsg: "ok N" sent
  raw.py connect-tcp [HOST]      connect to a loopback listener of its own (on 127.0.0.1),
                                 at HOST (127.0.0.1); then whether the listener got it
  raw.py chroot PATH | unshare FLAGS | clone FLAGS | clone3 | setns NSFILE NSTYPE
                                 the calls that change a process's root or mount namespace
                                 (FLAGS, NSTYPE: numbers); a child made returns at once
  raw.py open_tree PATH | fsopen FSTYPE   the mount API's detached mounts (OPEN_TREE_CLONE)
  raw.py bind SOURCE TARGET      mount(SOURCE, TARGET, NULL, MS_BIND)
  raw.py userns-read PATH        drop every capability, make a user namespace (where they are
                                 all back), then read PATH's first line
  raw.py chgrp-dropped PATH GID  drop the supplementary groups but 0, then chown PATH to GID
"""
import ctypes
import errno
import fcntl
import mmap
import os
import sys

# mov %rdi,%rax; mov %rsi,%rdi; mov %rdx,%rsi; mov %rcx,%rdx; mov %r8,%r10;
# mov %r9,%r8; mov 8(%rsp),%r9; syscall; ret  -- returns -errno on failure, as the kernel does
CODE = bytes([0x48, 0x89, 0xF8, 0x48, 0x89, 0xF7, 0x48, 0x89, 0xD6, 0x48, 0x89, 0xCA,
              0x4D, 0x89, 0xC2, 0x4D, 0x89, 0xC8, 0x4C, 0x8B, 0x4C, 0x24, 0x08, 0x0F, 0x05, 0xC3])
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(CODE)
addr = ctypes.addressof(ctypes.c_char.from_buffer(page))
# RAW_VIA_PAGE=1: through the shim's own syscall page instead (os.h's
# JAIL_SYSCALL_PAGE, the same calling convention), as a program written
# against libjail could: what the kernel layer and the supervisor still hold
if os.environ.get("RAW_VIA_PAGE") == "1":
    addr = 0x6A1100000000
trap = ctypes.CFUNCTYPE(ctypes.c_long, *([ctypes.c_long] * 7))(addr)
SYS = {"openat": 257, "mkdirat": 258, "unlinkat": 263, "renameat": 264, "newfstatat": 262, "readlinkat": 267,
       "statx": 332, "io_uring_setup": 425, "open_by_handle_at": 304,
       "openat2": 437, "connect": 42, "statfs": 137, "getxattr": 191, "lgetxattr": 192, "setxattr": 188,
       "lsetxattr": 189, "listxattr": 194, "removexattr": 197, "getxattrat": 464,
       "sendto": 44, "sendmsg": 46, "sendmmsg": 307,
       "chroot": 161, "unshare": 272, "clone": 56, "clone3": 435, "setns": 308,
       "open_tree": 428, "fsopen": 430, "mount": 165, "capset": 126, "setgroups": 116, "fchownat": 260}
AT_EMPTY_PATH = 0x1000
AT_FDCWD = -100
keep = []


def arg(v):
    if isinstance(v, (bytes, str)):
        b = ctypes.create_string_buffer(os.fsencode(v))
        keep.append(b)
        return ctypes.addressof(b)
    return v


def mem(b):  # the address of a copy of bytes b, kept alive
    m = ctypes.create_string_buffer(b, len(b))
    keep.append(m)
    return ctypes.addressof(m)


def call(name, *args):
    a = [arg(v) for v in args] + [0] * (6 - len(args))
    r = trap(SYS[name], *a[:6])
    if r < 0:
        print("err " + errno.errorcode.get(-r, str(-r)))
        sys.exit(0)
    return r


op = sys.argv[1]
fd_cwd = AT_FDCWD
if op in ("open", "read", "cloexec"):
    mode = sys.argv[3] if len(sys.argv) > 3 else "r"
    flags = {"r": os.O_RDONLY, "w": os.O_WRONLY, "creat": os.O_WRONLY | os.O_CREAT | os.O_TRUNC}[mode]
    if op == "cloexec":
        flags |= os.O_CLOEXEC
    fd = call("openat", fd_cwd, sys.argv[2], flags, 0o666)
    if op == "read":
        print("ok " + os.read(fd, 4096).decode().splitlines()[0])
    elif op == "cloexec":
        print("ok cloexec=%d" % (1 if fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC else 0))
    else:
        print("ok")
elif op == "mkdir":
    call("mkdirat", fd_cwd, sys.argv[2], 0o777)
    print("ok")
elif op == "unlink":
    call("unlinkat", fd_cwd, sys.argv[2], 0)
    print("ok")
elif op == "rename":
    call("renameat", fd_cwd, sys.argv[2], fd_cwd, sys.argv[3])
    print("ok")
elif op in ("stat", "fstat"):
    buf = ctypes.create_string_buffer(144)
    if op == "fstat":
        fd = call("openat", fd_cwd, sys.argv[2], os.O_RDONLY, 0)
        call("newfstatat", fd, "", ctypes.addressof(buf), AT_EMPTY_PATH)
    else:
        call("newfstatat", fd_cwd, sys.argv[2], ctypes.addressof(buf), 0)
    print("ok size=%d" % int.from_bytes(buf.raw[48:56], "little"))  # st_size
elif op == "statx":
    buf = ctypes.create_string_buffer(256)
    call("statx", fd_cwd, sys.argv[2], 0, 0x7FF, ctypes.addressof(buf))
    print("ok size=%d" % int.from_bytes(buf.raw[40:48], "little"))  # stx_size
elif op == "readlink":
    buf = ctypes.create_string_buffer(256)
    n = call("readlinkat", fd_cwd, sys.argv[2], ctypes.addressof(buf), 256)
    print("ok " + buf.raw[:n].decode())
elif op == "handle":
    h = ctypes.create_string_buffer(64)
    call("open_by_handle_at", fd_cwd, ctypes.addressof(h), 0)
    print("ok")
elif op == "beneath":
    here = call("openat", fd_cwd, ".", os.O_RDONLY | os.O_DIRECTORY, 0)
    how = ctypes.create_string_buffer(24)  # struct open_how: flags, mode, resolve
    how.raw = (os.O_RDONLY).to_bytes(8, "little") + bytes(8) + (0x08).to_bytes(8, "little")  # RESOLVE_BENEATH
    call("openat2", here, sys.argv[2], ctypes.addressof(how), 24)
    print("ok")
elif op == "emfile":
    import resource
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    for _ in range(100):
        call("openat", fd_cwd, sys.argv[2], os.O_RDONLY, 0)  # prints the error and exits
    print("ok (no limit reached)")
elif op == "connect-tcp":
    import socket
    import struct
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    port = lst.getsockname()[1]
    host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    s = socket.socket()
    sa = ctypes.create_string_buffer(struct.pack("=H", socket.AF_INET) + struct.pack("!H4s8x", port, socket.inet_aton(host)))
    call("connect", s.fileno(), ctypes.addressof(sa), 16)
    lst.settimeout(2)
    c, _ = lst.accept()
    print("ok")
elif op == "connect-unix":
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = os.fsencode(sys.argv[2])
    sa = ctypes.create_string_buffer(socket.AF_UNIX.to_bytes(2, "little") + path + b"\0")
    call("connect", s.fileno(), ctypes.addressof(sa), 2 + len(path) + 1)
    print("ok")
elif op == "statfs":
    buf = ctypes.create_string_buffer(120)
    call("statfs", sys.argv[2], ctypes.addressof(buf))
    print("ok bsize=%d" % int.from_bytes(buf.raw[8:16], "little"))  # f_bsize
elif op == "setxattr":
    v = os.fsencode(sys.argv[4])
    call("setxattr", sys.argv[2], sys.argv[3], v, len(v), 0)
    print("ok")
elif op in ("getxattr", "lgetxattr"):
    buf = ctypes.create_string_buffer(256)
    n = call(op, sys.argv[2], sys.argv[3], ctypes.addressof(buf), 256)
    print("ok " + buf.raw[:n].decode())
elif op == "listxattr":
    buf = ctypes.create_string_buffer(1024)
    n = call("listxattr", sys.argv[2], ctypes.addressof(buf), 1024)
    print("ok " + ",".join(x.decode() for x in buf.raw[:n].split(b"\0") if x))
elif op == "removexattr":
    call("removexattr", sys.argv[2], sys.argv[3])
    print("ok")
elif op == "getxattrat":
    buf = ctypes.create_string_buffer(256)
    args = ctypes.create_string_buffer(ctypes.addressof(buf).to_bytes(8, "little") + (256).to_bytes(4, "little") + bytes(4))
    n = call("getxattrat", AT_FDCWD, sys.argv[2], 0, sys.argv[3], ctypes.addressof(args), 16)
    print("ok " + buf.raw[:n].decode())
elif op in ("sendto", "sendmsg", "sendmmsg"):
    import socket
    import struct

    def dest(d):  # HOST:PORT (UDP), unspec:HOST:PORT (the same, family AF_UNSPEC), @NAME (abstract), PATH
        if ":" in d and not d.startswith("/"):
            fam = 0 if d.startswith("unspec:") else socket.AF_INET
            host, port = d.split(":", 1)[1].rsplit(":", 1) if fam == 0 else d.rsplit(":", 1)
            return socket.AF_INET, struct.pack("=H", fam) + struct.pack("!H4s8x", int(port), socket.inet_aton(host))
        if d.startswith("@"):
            return socket.AF_UNIX, socket.AF_UNIX.to_bytes(2, "little") + b"\0" + os.fsencode(d[1:])
        p = os.fsencode(d)
        return socket.AF_UNIX, socket.AF_UNIX.to_bytes(2, "little") + p + b"\0"

    def header(d, text, fd=None):  # a struct msghdr, and what it points to
        fam, sa = dest(d)
        name = ctypes.create_string_buffer(sa, len(sa))
        data = ctypes.create_string_buffer(os.fsencode(text), len(text))
        iov = ctypes.create_string_buffer(ctypes.addressof(data).to_bytes(8, "little") + len(text).to_bytes(8, "little"))
        ctl, ctl_len = 0, 0
        if fd is not None:  # struct cmsghdr {size_t len; int level; int type;} + one int, padded
            claimed = int(os.environ.get("RAW_CMSG_LEN", "20"))  # a lie about its length, to test the check
            raw_ctl = claimed.to_bytes(8, "little") + (1).to_bytes(4, "little") + (1).to_bytes(4, "little") + fd.to_bytes(4, "little") + bytes(4)
            ctl_buf = ctypes.create_string_buffer(raw_ctl, 24)
            keep.append(ctl_buf)
            ctl, ctl_len = ctypes.addressof(ctl_buf), 24
        keep.extend([name, data, iov])
        return fam, (ctypes.addressof(name).to_bytes(8, "little") + len(sa).to_bytes(4, "little") + bytes(4) +
                     ctypes.addressof(iov).to_bytes(8, "little") + (1).to_bytes(8, "little") +
                     ctl.to_bytes(8, "little") + ctl_len.to_bytes(8, "little") + bytes(8))

    fam = dest(sys.argv[2])[0]
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if op == "sendto":
        fam, sa = dest(sys.argv[2])
        n = call("sendto", s.fileno(), os.fsencode(sys.argv[3]), len(sys.argv[3]), 0, mem(sa), len(sa))
        print("ok %d" % n)
    elif op == "sendmsg":
        fd = os.open(sys.argv[4], os.O_RDONLY) if len(sys.argv) > 4 else None
        _, h = header(sys.argv[2], sys.argv[3], fd)
        n = call("sendmsg", s.fileno(), mem(h), 0)
        print("ok %d" % n)
    else:
        pairs = sys.argv[2:]
        vec = b"".join(header(pairs[i], pairs[i + 1])[1] + bytes(8) for i in range(0, len(pairs), 2))
        n = call("sendmmsg", s.fileno(), mem(vec), len(pairs) // 2, 0)
        print("ok %d" % n)
elif op == "ask-forge":
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    path = os.fsencode(sys.argv[2])
    sa = mem(socket.AF_UNIX.to_bytes(2, "little") + path + b"\0")
    via_page = ctypes.CFUNCTYPE(ctypes.c_long, *([ctypes.c_long] * 7))(0x6A1100000000)
    r = via_page(SYS["connect"], s.fileno(), sa, 2 + len(path) + 1, 0, 0, 0)
    if r < 0:
        print("connect err " + errno.errorcode.get(-r, str(-r)))
        sys.exit(0)
    text = os.fsencode(sys.argv[3].replace("\\n", "\n"))
    data = mem(text)
    iov = mem(data.to_bytes(8, "little") + len(text).to_bytes(8, "little"))
    msg = mem(bytes(16) + iov.to_bytes(8, "little") + (1).to_bytes(8, "little") + bytes(24))  # a msghdr, no name
    call("sendmsg", s.fileno(), msg, 0)  # sendmsg: supervised, so the supervisor sends it
    s.settimeout(3)
    try:
        print("ok " + (s.recv(8).decode() or "closed"))
    except socket.timeout:
        print("ok waiting")
elif op in ("chroot", "unshare"):
    call(op, int(sys.argv[2], 0) if op == "unshare" else sys.argv[2])
    print("ok")
elif op in ("clone", "clone3"):
    SIGCHLD = 17
    if op == "clone":  # like fork: no new stack, the child returns here
        pid = call("clone", int(sys.argv[2], 0) | SIGCHLD, 0, 0, 0, 0)
    else:  # struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, ...
        pid = call("clone3", mem(bytes(32) + SIGCHLD.to_bytes(8, "little") + bytes(48)), 88)
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    print("ok")
elif op == "setns":
    nsfd = os.open(sys.argv[2], os.O_RDONLY)
    call("setns", nsfd, int(sys.argv[3], 0))
    print("ok")
elif op == "open_tree":
    call("open_tree", AT_FDCWD, sys.argv[2], 1 | os.O_CLOEXEC)  # OPEN_TREE_CLONE
    print("ok")
elif op == "bind":
    call("mount", sys.argv[2], sys.argv[3], 0, 4096, 0)  # MS_BIND
    print("ok")
elif op == "fsopen":
    call("fsopen", sys.argv[2], 0)
    print("ok")
elif op == "userns-read":
    header = mem((0x20080522).to_bytes(4, "little") + bytes(4))  # _LINUX_CAPABILITY_VERSION_3, this thread
    call("capset", header, mem(bytes(24)))  # no capability, effective, permitted or inheritable
    call("unshare", 0x10000000)  # CLONE_NEWUSER
    fd = call("openat", fd_cwd, sys.argv[2], os.O_RDONLY, 0)
    print("ok " + os.read(fd, 4096).decode().splitlines()[0])
elif op == "chgrp-dropped":
    call("setgroups", 1, mem((0).to_bytes(4, "little")))
    call("fchownat", fd_cwd, sys.argv[2], -1 & 0xFFFFFFFF, int(sys.argv[3]), 0)
    print("ok")
elif op == "io_uring":
    params = ctypes.create_string_buffer(120)
    call("io_uring_setup", 8, ctypes.addressof(params))
    print("ok")
