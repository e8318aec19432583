import { arch } from 'node:os';

/**
 * A seccomp filter (classic BPF, as bwrap's --seccomp takes it) that shuts kernel interfaces a
 * script never needs and that are not namespaced or are common escape routes: the keyrings,
 * ptrace, bpf, perf, userfaultfd, io_uring, mounts, modules, kexec and file handles. Everything
 * else is allowed: a deny-list keeps Node, Python and Chromium (--no-sandbox) working unchanged.
 * Built by hand because it is twenty instructions; x86_64 only (other architectures get none, and
 * the namespaces, uid and cgroups still hold).
 */
const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;

/** x86_64 numbers of the denied calls → the errno they fail with. */
export const DENIED_SYSCALLS: Record<string, [number, number]> = {
  ptrace: [101, EPERM],
  syslog: [103, EPERM],
  acct: [163, EPERM],
  mount: [165, EPERM],
  umount2: [166, EPERM],
  swapon: [167, EPERM],
  swapoff: [168, EPERM],
  reboot: [169, EPERM],
  init_module: [175, EPERM],
  delete_module: [176, EPERM],
  kexec_load: [246, EPERM],
  add_key: [248, EPERM],
  request_key: [249, EPERM],
  keyctl: [250, EPERM],
  unshare: [272, EPERM],
  perf_event_open: [298, EPERM],
  name_to_handle_at: [303, EPERM],
  open_by_handle_at: [304, EPERM],
  setns: [308, EPERM],
  process_vm_readv: [310, EPERM],
  process_vm_writev: [311, EPERM],
  finit_module: [313, EPERM],
  kexec_file_load: [320, EPERM],
  bpf: [321, EPERM],
  userfaultfd: [323, EPERM],
  // ENOSYS, not EPERM: libuv then falls back to its thread pool as on kernels without io_uring.
  io_uring_setup: [425, ENOSYS],
  io_uring_enter: [426, ENOSYS],
  io_uring_register: [427, ENOSYS],
  open_tree: [428, EPERM],
  move_mount: [429, EPERM],
  fsopen: [430, EPERM],
  fsconfig: [431, EPERM],
  fsmount: [432, EPERM],
  fspick: [433, EPERM],
  mount_setattr: [442, EPERM],
};

function instruction(code: number, jt: number, jf: number, k: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt16LE(code, 0);
  out.writeUInt8(jt, 2);
  out.writeUInt8(jf, 3);
  out.writeUInt32LE(k >>> 0, 4);
  return out;
}

/** The compiled filter, or undefined where it is not built for this architecture. */
export function seccompProgram(): Buffer | undefined {
  if (arch() !== 'x64') return undefined;
  const program = [
    instruction(LD_W_ABS, 0, 0, 4), // seccomp_data.arch
    instruction(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
    instruction(RET_K, 0, 0, RET_KILL_PROCESS), // another ABI (i386) through int 0x80: never
    instruction(LD_W_ABS, 0, 0, 0), // seccomp_data.nr
    instruction(JGE_K, 0, 1, X32_SYSCALL_BIT),
    instruction(RET_K, 0, 0, RET_ERRNO | ENOSYS), // the x32 ABI's numbers: never
  ];
  for (const [nr, errno] of Object.values(DENIED_SYSCALLS)) {
    program.push(instruction(JEQ_K, 0, 1, nr), instruction(RET_K, 0, 0, RET_ERRNO | errno));
  }
  program.push(instruction(RET_K, 0, 0, RET_ALLOW));
  return Buffer.concat(program);
}
