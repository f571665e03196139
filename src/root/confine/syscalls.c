/* SPDX-License-Identifier: ISC */
/*
 * Every system call a supervised ROOT command can make, and what the
 * supervisor does with it (promise 8): the one table the seccomp filter
 * is built from (supervise.c) and docs/execution.md's table is made
 * from (test-syscalls --markdown; test-syscalls fails when the two
 * differ, or when the kernel headers know a call this table does not).
 *
 *  SC_DONE       notified; judged, and made by the runner for the caller
 *                (the kernel never looks the path up again)
 *  SC_CONTINUED  notified; judged, then the kernel makes it: why that is
 *                safe is in its reason
 *  SC_WHEN       notified only when an argument says so (args[when_arg]
 *                & when_bits, or != 0 when when_bits is 0), then as above
 *  SC_ENOSYS     fails with ENOSYS, as on a kernel without it
 *  SC_ALLOWED    not notified: it works on descriptors, memory or the
 *                process itself, or (METADATA) only reads what a name is
 *
 * Every number above SC_NR_KNOWN_LAST fails with ENOSYS too: a newer
 * kernel's new way to a file is refused until it is judged here.
 */
#include <sys/syscall.h>

#include "intercept.h"

static const char WHY_OPEN[] =
    "opened here as the caller and the descriptor handed over; the inode "
    "reached compared with the one judged; a FIFO or terminal, whose open "
    "may wait, continues once every entry on its way was judged beyond the "
    "requester";
static const char WHY_METADATA[] =
    "metadata only (names, times, modes, links): what it names is judged "
    "when something is read, written or executed through it";
static const char WHY_CONNECT[] =
    "a Unix stream or TCP connection to this host is made here on the "
    "caller's socket (pidfd_getfd) and its peer judged after (SO_PEERCRED, "
    "the far end's owner); datagram sockets continue once the destination "
    "is judged";
static const char WHY_SENDTO[] =
    "notified only with an address: a datagram to a port of this host that "
    "anyone may bind only where a socket not the requester's holds it; TCP "
    "Fast Open to this host refused; a named Unix socket's way judged; then"
    " it continues";
static const char WHY_SENDMSG[] =
    "each message's address judged as sendto's; then it continues";
static const char WHY_RECVMSG[] =
    "descriptors (SCM_RIGHTS) only from a judged peer: a Unix socket with a "
    "control buffer continues when its stream peer is judged beyond the "
    "requester (SO_PEERCRED, SO_PEERPIDFD) or it is an unnamed pair; a "
    "named datagram socket's senders cannot be judged, so its control data "
    "is refused; anything else cannot carry descriptors";
static const char WHY_BIND[] =
    "a Unix socket's new name: the way judged as mknod's; the kernel makes "
    "it without following";
static const char WHY_EXEC[] =
    "the file, its #!, binfmt_misc and ELF interpreters judged and hashed; "
    "continues: every entry on every way was judged beyond the requester, "
    "so the kernel's lookup lands on the same files or ones equally root's";
static const char WHY_TRUNCATE[] =
    "judged as a write; opened here and truncated through that descriptor";
static const char WHY_MOVE[] =
    "both paths judged (a symlink's target from the link's directory); made"
    " here in the directories judged";
static const char WHY_MAKE[] =
    "the way judged; made here in the directory judged, as the caller; "
    "device nodes and set-id files only where the argv shows it";
static const char WHY_UNLINK[] =
    "the way judged; the name removed here from the directory judged";
static const char WHY_OWNER_MODE[] =
    "the way judged; the object opened here (O_PATH) and changed through "
    "it; set-id bits and giving the requester's files away only where the "
    "argv shows it; undone when it takes the requester's write access from "
    "a file still held open for writing";
static const char WHY_FCHMOD[] =
    "notified only when it sets a set-id bit: then judged as chmod of the "
    "descriptor's file";
static const char WHY_PROCESS[] =
    "the target process judged (its uids, its user namespace); the "
    "arguments are numbers";
static const char WHY_TIMES[] =
    "an entry the requester cannot replace; continues on the same argument "
    "as exec";
static const char WHY_PAST[] =
    "reaches files past the supervised calls (a mount API, a file handle, a"
    " ring of calls, a message queue by name): callers fall back to the "
    "calls that are supervised";
static const char WHY_ROOT[] =
    "the path judged (the new root must not be the requester's); continues "
    "on the same argument as exec";
static const char WHY_WRITTEN_PATH[] =
    "judged as a write (root writes the file); continues on the same "
    "argument as exec";
static const char WHY_MOUNT[] =
    "the source of a bind or move, a device path and the target judged; "
    "continues on the same argument as exec";
static const char WHY_PATH[] =
    "the path judged; continues on the same argument as exec";
static const char WHY_XATTR[] =
    "only on an entry the requester cannot replace; a file capability only "
    "where the argv shows it";
static const char WHY_FXATTR[] =
    "the descriptor was judged when opened; a file capability only where "
    "the argv shows it";
static const char WHY_UTIMENSAT[] =
    "notified only with a path: an entry the requester cannot replace; "
    "continues on the same argument as exec";
static const char WHY_SETNS[] =
    "the namespace (or the process of a pidfd) judged: refused when the "
    "requester owns it or made its user namespace";

const struct syscall_rule syscall_rules[] = {
	{ __NR_read, "read", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_write, "write", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_close, "close", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_stat, "stat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_fstat, "fstat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_lstat, "lstat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_lseek, "lseek", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mmap, "mmap", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mprotect, "mprotect", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_munmap, "munmap", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_brk, "brk", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_sigaction, "rt_sigaction", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_sigprocmask, "rt_sigprocmask", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_sigreturn, "rt_sigreturn", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_ioctl, "ioctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pread64, "pread64", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pwrite64, "pwrite64", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_readv, "readv", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_writev, "writev", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_yield, "sched_yield", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mremap, "mremap", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_msync, "msync", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mincore, "mincore", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_madvise, "madvise", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_shmget, "shmget", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_shmat, "shmat", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_shmctl, "shmctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_dup, "dup", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_nanosleep, "nanosleep", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getitimer, "getitimer", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setitimer, "setitimer", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getpid, "getpid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sendfile, "sendfile", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_socket, "socket", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_connect, "connect", SC_DONE, WHY_CONNECT, 0, 0 },
	{ __NR_accept, "accept", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sendto, "sendto", SC_WHEN, WHY_SENDTO, 4, 0 },
	{ __NR_recvfrom, "recvfrom", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sendmsg, "sendmsg", SC_CONTINUED, WHY_SENDMSG, 0, 0 },
	{ __NR_recvmsg, "recvmsg", SC_CONTINUED, WHY_RECVMSG, 0, 0 },
	{ __NR_shutdown, "shutdown", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_bind, "bind", SC_CONTINUED, WHY_BIND, 0, 0 },
	{ __NR_listen, "listen", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getsockname, "getsockname", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getpeername, "getpeername", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_socketpair, "socketpair", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setsockopt, "setsockopt", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getsockopt, "getsockopt", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_clone, "clone", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_execve, "execve", SC_CONTINUED, WHY_EXEC, 0, 0 },
	{ __NR_exit, "exit", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_wait4, "wait4", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_kill, "kill", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_uname, "uname", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_semget, "semget", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_semop, "semop", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_semctl, "semctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_shmdt, "shmdt", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_msgget, "msgget", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_msgsnd, "msgsnd", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_msgrcv, "msgrcv", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_msgctl, "msgctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_fcntl, "fcntl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_flock, "flock", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_fsync, "fsync", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_fdatasync, "fdatasync", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_truncate, "truncate", SC_DONE, WHY_TRUNCATE, 0, 0 },
	{ __NR_ftruncate, "ftruncate", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getcwd, "getcwd", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_chdir, "chdir", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_fchdir, "fchdir", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_fchmod, "fchmod", SC_WHEN, WHY_FCHMOD, 1, 06000 },
	{ __NR_fchown, "fchown", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_umask, "umask", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_gettimeofday, "gettimeofday", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getrlimit, "getrlimit", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getrusage, "getrusage", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sysinfo, "sysinfo", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_times, "times", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_ptrace, "ptrace", SC_CONTINUED, WHY_PROCESS, 0, 0 },
	{ __NR_getuid, "getuid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_syslog, "syslog", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getgid, "getgid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setuid, "setuid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setgid, "setgid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_geteuid, "geteuid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getegid, "getegid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setpgid, "setpgid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getppid, "getppid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setsid, "setsid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setreuid, "setreuid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setregid, "setregid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getgroups, "getgroups", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setgroups, "setgroups", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setresuid, "setresuid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getresuid, "getresuid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setresgid, "setresgid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getresgid, "getresgid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getpgid, "getpgid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setfsuid, "setfsuid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setfsgid, "setfsgid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getsid, "getsid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_capget, "capget", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_capset, "capset", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_sigpending, "rt_sigpending", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_sigtimedwait, "rt_sigtimedwait", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_sigqueueinfo, "rt_sigqueueinfo", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_sigsuspend, "rt_sigsuspend", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sigaltstack, "sigaltstack", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_personality, "personality", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_statfs, "statfs", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_fstatfs, "fstatfs", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_getpriority, "getpriority", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setpriority, "setpriority", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_setparam, "sched_setparam", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_getparam, "sched_getparam", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_setscheduler, "sched_setscheduler", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_getscheduler, "sched_getscheduler", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_get_priority_max, "sched_get_priority_max", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_get_priority_min, "sched_get_priority_min", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_rr_get_interval, "sched_rr_get_interval", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mlock, "mlock", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_munlock, "munlock", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mlockall, "mlockall", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_munlockall, "munlockall", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_vhangup, "vhangup", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pivot_root, "pivot_root", SC_CONTINUED, WHY_ROOT, 0, 0 },
	{ __NR_prctl, "prctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_adjtimex, "adjtimex", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setrlimit, "setrlimit", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_chroot, "chroot", SC_CONTINUED, WHY_ROOT, 0, 0 },
	{ __NR_sync, "sync", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_acct, "acct", SC_CONTINUED, WHY_WRITTEN_PATH, 0, 0 },
	{ __NR_settimeofday, "settimeofday", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mount, "mount", SC_CONTINUED, WHY_MOUNT, 0, 0 },
	{ __NR_umount2, "umount2", SC_CONTINUED, WHY_PATH, 0, 0 },
	{ __NR_swapon, "swapon", SC_CONTINUED, WHY_WRITTEN_PATH, 0, 0 },
	{ __NR_swapoff, "swapoff", SC_CONTINUED, WHY_PATH, 0, 0 },
	{ __NR_reboot, "reboot", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sethostname, "sethostname", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setdomainname, "setdomainname", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_init_module, "init_module", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_delete_module, "delete_module", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_quotactl, "quotactl", SC_CONTINUED, WHY_PATH, 0, 0 },
	{ __NR_nfsservctl, "nfsservctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_gettid, "gettid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_readahead, "readahead", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_setxattr, "setxattr", SC_CONTINUED, WHY_XATTR, 0, 0 },
	{ __NR_lsetxattr, "lsetxattr", SC_CONTINUED, WHY_XATTR, 0, 0 },
	{ __NR_fsetxattr, "fsetxattr", SC_CONTINUED, WHY_FXATTR, 0, 0 },
	{ __NR_getxattr, "getxattr", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_lgetxattr, "lgetxattr", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_fgetxattr, "fgetxattr", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_listxattr, "listxattr", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_llistxattr, "llistxattr", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_flistxattr, "flistxattr", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_removexattr, "removexattr", SC_CONTINUED, WHY_XATTR, 0, 0 },
	{ __NR_lremovexattr, "lremovexattr", SC_CONTINUED, WHY_XATTR, 0, 0 },
	{ __NR_fremovexattr, "fremovexattr", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_tkill, "tkill", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_futex, "futex", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_setaffinity, "sched_setaffinity", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_getaffinity, "sched_getaffinity", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_io_setup, "io_setup", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_io_destroy, "io_destroy", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_io_getevents, "io_getevents", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_io_submit, "io_submit", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_io_cancel, "io_cancel", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_lookup_dcookie, "lookup_dcookie", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_remap_file_pages, "remap_file_pages", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getdents64, "getdents64", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_set_tid_address, "set_tid_address", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_restart_syscall, "restart_syscall", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_semtimedop, "semtimedop", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_fadvise64, "fadvise64", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timer_create, "timer_create", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timer_settime, "timer_settime", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timer_gettime, "timer_gettime", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timer_getoverrun, "timer_getoverrun", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timer_delete, "timer_delete", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_clock_settime, "clock_settime", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_clock_gettime, "clock_gettime", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_clock_getres, "clock_getres", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_clock_nanosleep, "clock_nanosleep", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_exit_group, "exit_group", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_epoll_ctl, "epoll_ctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_tgkill, "tgkill", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mbind, "mbind", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_set_mempolicy, "set_mempolicy", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_get_mempolicy, "get_mempolicy", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mq_open, "mq_open", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_mq_unlink, "mq_unlink", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mq_timedsend, "mq_timedsend", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mq_timedreceive, "mq_timedreceive", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mq_notify, "mq_notify", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mq_getsetattr, "mq_getsetattr", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_kexec_load, "kexec_load", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_waitid, "waitid", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_add_key, "add_key", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_request_key, "request_key", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_keyctl, "keyctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_ioprio_set, "ioprio_set", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_ioprio_get, "ioprio_get", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_inotify_add_watch, "inotify_add_watch", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_inotify_rm_watch, "inotify_rm_watch", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_migrate_pages, "migrate_pages", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_openat, "openat", SC_DONE, WHY_OPEN, 0, 0 },
	{ __NR_mkdirat, "mkdirat", SC_DONE, WHY_MAKE, 0, 0 },
	{ __NR_mknodat, "mknodat", SC_DONE, WHY_MAKE, 0, 0 },
	{ __NR_fchownat, "fchownat", SC_DONE, WHY_OWNER_MODE, 0, 0 },
	{ __NR_newfstatat, "newfstatat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_unlinkat, "unlinkat", SC_DONE, WHY_UNLINK, 0, 0 },
	{ __NR_renameat, "renameat", SC_DONE, WHY_MOVE, 0, 0 },
	{ __NR_linkat, "linkat", SC_DONE, WHY_MOVE, 0, 0 },
	{ __NR_symlinkat, "symlinkat", SC_DONE, WHY_MOVE, 0, 0 },
	{ __NR_readlinkat, "readlinkat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_fchmodat, "fchmodat", SC_DONE, WHY_OWNER_MODE, 0, 0 },
	{ __NR_faccessat, "faccessat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_pselect6, "pselect6", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_ppoll, "ppoll", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_unshare, "unshare", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_set_robust_list, "set_robust_list", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_get_robust_list, "get_robust_list", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_splice, "splice", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_tee, "tee", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sync_file_range, "sync_file_range", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_vmsplice, "vmsplice", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_move_pages, "move_pages", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_utimensat, "utimensat", SC_WHEN, WHY_UTIMENSAT, 1, 0 },
	{ __NR_epoll_pwait, "epoll_pwait", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timerfd_create, "timerfd_create", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_fallocate, "fallocate", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timerfd_settime, "timerfd_settime", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_timerfd_gettime, "timerfd_gettime", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_accept4, "accept4", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_signalfd4, "signalfd4", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_eventfd2, "eventfd2", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_epoll_create1, "epoll_create1", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_dup3, "dup3", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pipe2, "pipe2", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_inotify_init1, "inotify_init1", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_preadv, "preadv", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pwritev, "pwritev", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_perf_event_open, "perf_event_open", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_recvmmsg, "recvmmsg", SC_CONTINUED, WHY_RECVMSG, 0, 0 },
	{ __NR_fanotify_init, "fanotify_init", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_fanotify_mark, "fanotify_mark", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_prlimit64, "prlimit64", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_name_to_handle_at, "name_to_handle_at", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_open_by_handle_at, "open_by_handle_at", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_clock_adjtime, "clock_adjtime", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_syncfs, "syncfs", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sendmmsg, "sendmmsg", SC_CONTINUED, WHY_SENDMSG, 0, 0 },
	{ __NR_setns, "setns", SC_CONTINUED, WHY_SETNS, 0, 0 },
	{ __NR_getcpu, "getcpu", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_process_vm_readv, "process_vm_readv", SC_CONTINUED, WHY_PROCESS, 0, 0 },
	{ __NR_process_vm_writev, "process_vm_writev", SC_CONTINUED, WHY_PROCESS, 0, 0 },
	{ __NR_kcmp, "kcmp", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_finit_module, "finit_module", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_setattr, "sched_setattr", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_sched_getattr, "sched_getattr", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_renameat2, "renameat2", SC_DONE, WHY_MOVE, 0, 0 },
	{ __NR_seccomp, "seccomp", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getrandom, "getrandom", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_memfd_create, "memfd_create", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_kexec_file_load, "kexec_file_load", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_bpf, "bpf", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_execveat, "execveat", SC_CONTINUED, WHY_EXEC, 0, 0 },
	{ __NR_userfaultfd, "userfaultfd", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_membarrier, "membarrier", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mlock2, "mlock2", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_copy_file_range, "copy_file_range", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_preadv2, "preadv2", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pwritev2, "pwritev2", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pkey_mprotect, "pkey_mprotect", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pkey_alloc, "pkey_alloc", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pkey_free, "pkey_free", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_statx, "statx", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_io_pgetevents, "io_pgetevents", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_rseq, "rseq", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pidfd_send_signal, "pidfd_send_signal", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_io_uring_setup, "io_uring_setup", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_io_uring_enter, "io_uring_enter", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_io_uring_register, "io_uring_register", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_open_tree, "open_tree", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_move_mount, "move_mount", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_fsopen, "fsopen", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_fsconfig, "fsconfig", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_fsmount, "fsmount", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_fspick, "fspick", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_pidfd_open, "pidfd_open", SC_CONTINUED, WHY_PROCESS, 0, 0 },
	{ __NR_clone3, "clone3", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_close_range, "close_range", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_openat2, "openat2", SC_DONE, WHY_OPEN, 0, 0 },
	{ __NR_pidfd_getfd, "pidfd_getfd", SC_CONTINUED, WHY_PROCESS, 0, 0 },
	{ __NR_faccessat2, "faccessat2", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_process_madvise, "process_madvise", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_epoll_pwait2, "epoll_pwait2", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_mount_setattr, "mount_setattr", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_quotactl_fd, "quotactl_fd", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_landlock_create_ruleset, "landlock_create_ruleset", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_landlock_add_rule, "landlock_add_rule", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_landlock_restrict_self, "landlock_restrict_self", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_memfd_secret, "memfd_secret", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_process_mrelease, "process_mrelease", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_futex_waitv, "futex_waitv", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_set_mempolicy_home_node, "set_mempolicy_home_node", SC_ALLOWED, NULL, 0, 0 },
#ifdef __x86_64__
	/* the calls x86-64 kept from before the generic table */
	{ __NR_open, "open", SC_DONE, WHY_OPEN, 0, 0 },
	{ __NR_poll, "poll", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_access, "access", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_pipe, "pipe", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_select, "select", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_dup2, "dup2", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_pause, "pause", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_alarm, "alarm", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_fork, "fork", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_vfork, "vfork", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getdents, "getdents", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_rename, "rename", SC_DONE, WHY_MOVE, 0, 0 },
	{ __NR_mkdir, "mkdir", SC_DONE, WHY_MAKE, 0, 0 },
	{ __NR_rmdir, "rmdir", SC_DONE, WHY_UNLINK, 0, 0 },
	{ __NR_creat, "creat", SC_DONE, WHY_OPEN, 0, 0 },
	{ __NR_link, "link", SC_DONE, WHY_MOVE, 0, 0 },
	{ __NR_unlink, "unlink", SC_DONE, WHY_UNLINK, 0, 0 },
	{ __NR_symlink, "symlink", SC_DONE, WHY_MOVE, 0, 0 },
	{ __NR_readlink, "readlink", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_chmod, "chmod", SC_DONE, WHY_OWNER_MODE, 0, 0 },
	{ __NR_chown, "chown", SC_DONE, WHY_OWNER_MODE, 0, 0 },
	{ __NR_lchown, "lchown", SC_DONE, WHY_OWNER_MODE, 0, 0 },
	{ __NR_getpgrp, "getpgrp", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_utime, "utime", SC_CONTINUED, WHY_TIMES, 0, 0 },
	{ __NR_mknod, "mknod", SC_DONE, WHY_MAKE, 0, 0 },
	{ __NR_uselib, "uselib", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ __NR_ustat, "ustat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_sysfs, "sysfs", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ __NR_modify_ldt, "modify_ldt", SC_ALLOWED, NULL, 0, 0 },
	{ __NR__sysctl, "_sysctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_arch_prctl, "arch_prctl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_iopl, "iopl", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_ioperm, "ioperm", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_create_module, "create_module", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_get_kernel_syms, "get_kernel_syms", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_query_module, "query_module", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_getpmsg, "getpmsg", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_putpmsg, "putpmsg", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_afs_syscall, "afs_syscall", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_tuxcall, "tuxcall", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_security, "security", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_time, "time", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_set_thread_area, "set_thread_area", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_get_thread_area, "get_thread_area", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_epoll_create, "epoll_create", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_epoll_ctl_old, "epoll_ctl_old", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_epoll_wait_old, "epoll_wait_old", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_epoll_wait, "epoll_wait", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_utimes, "utimes", SC_CONTINUED, WHY_TIMES, 0, 0 },
	{ __NR_vserver, "vserver", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_inotify_init, "inotify_init", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_futimesat, "futimesat", SC_CONTINUED, WHY_TIMES, 0, 0 },
	{ __NR_signalfd, "signalfd", SC_ALLOWED, NULL, 0, 0 },
	{ __NR_eventfd, "eventfd", SC_ALLOWED, NULL, 0, 0 },
#endif
	/* newer than the headers this builds with: numbers common to every architecture */
	{ SC_NR_CACHESTAT, "cachestat", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_FCHMODAT2, "fchmodat2", SC_DONE, WHY_OWNER_MODE, 0, 0 },
	{ SC_NR_MAP_SHADOW_STACK, "map_shadow_stack", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_FUTEX_WAKE, "futex_wake", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_FUTEX_WAIT, "futex_wait", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_FUTEX_REQUEUE, "futex_requeue", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_STATMOUNT, "statmount", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ SC_NR_LISTMOUNT, "listmount", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ SC_NR_LSM_GET_SELF_ATTR, "lsm_get_self_attr", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_LSM_SET_SELF_ATTR, "lsm_set_self_attr", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_LSM_LIST_MODULES, "lsm_list_modules", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_MSEAL, "mseal", SC_ALLOWED, NULL, 0, 0 },
	{ SC_NR_SETXATTRAT, "setxattrat", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ SC_NR_GETXATTRAT, "getxattrat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ SC_NR_LISTXATTRAT, "listxattrat", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ SC_NR_REMOVEXATTRAT, "removexattrat", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ SC_NR_OPEN_TREE_ATTR, "open_tree_attr", SC_ENOSYS, WHY_PAST, 0, 0 },
	{ SC_NR_FILE_GETATTR, "file_getattr", SC_ALLOWED, WHY_METADATA, 0, 0 },
	{ SC_NR_FILE_SETATTR, "file_setattr", SC_ENOSYS, WHY_PAST, 0, 0 },
};

const size_t syscall_nrules = sizeof syscall_rules / sizeof syscall_rules[0];
