//! Two-process message round trips, as the OS-latency suite of `kairos-platform` times them:
//! a partner process, forked from the calling thread (so on its CPU, under its scheduling
//! policy), echoes every message back over pipes, a UNIX-domain socket pair, named FIFOs or
//! loopback UDP. The partner makes only async-signal-safe calls (this process has threads),
//! dies with its parent (`PR_SET_PDEATHSIG`) and is killed and reaped on drop.

use crate::PlatformError;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Bytes per message.
pub const MESSAGE_BYTES: usize = 8;

/// The calling side's descriptors and the partner's pid.
pub struct EchoPartner {
    to_partner: i32,
    from_partner: i32,
    partner: libc::pid_t,
    /// Descriptors to close on drop (some are both ends of one socket).
    owned: Vec<i32>,
}

fn check(rc: i32, op: &'static str) -> Result<i32, PlatformError> {
    match rc < 0 {
        true => Err(PlatformError::last_os(op)),
        false => Ok(rc),
    }
}

fn pipe() -> Result<[i32; 2], PlatformError> {
    let mut fds = [0; 2];
    // SAFETY: fills two descriptors into valid storage.
    check(unsafe { libc::pipe(fds.as_mut_ptr()) }, "pipe")?;
    Ok(fds)
}

/// Forks the partner: it reads from `input`, writes what it read to `output`, until either
/// fails.
fn fork_echo(input: i32, output: i32) -> Result<libc::pid_t, PlatformError> {
    // SAFETY: the child only runs `echo`, which never returns into Rust code that allocates.
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => Err(PlatformError::last_os("fork the partner")),
        // SAFETY: the child of fork, with the descriptors it inherited open.
        0 => unsafe { echo(input, output) },
        child => Ok(child),
    }
}

/// The partner's loop, in the child: echo until a read or write fails, then exit.
///
/// # Safety
/// Only in a child of fork; `input` and `output` are open descriptors.
unsafe fn echo(input: i32, output: i32) -> ! {
    // SAFETY: every call below is an async-signal-safe system call, on a stack buffer of
    // MESSAGE_BYTES and the descriptors the caller vouches for.
    unsafe {
        // The partner must not outlive the measuring thread.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let mut buffer = [0u8; MESSAGE_BYTES];
        loop {
            let n = libc::read(input, buffer.as_mut_ptr().cast(), MESSAGE_BYTES);
            if n <= 0 || libc::write(output, buffer.as_ptr().cast(), n as usize) != n {
                libc::_exit(0);
            }
        }
    }
}

impl EchoPartner {
    /// Over two pipes.
    pub fn pipes() -> Result<EchoPartner, PlatformError> {
        let (there, back) = (pipe()?, pipe()?);
        let partner = fork_echo(there[0], back[1])?;
        Ok(EchoPartner {
            to_partner: there[1],
            from_partner: back[0],
            partner,
            owned: vec![there[0], there[1], back[0], back[1]],
        })
    }

    /// Over a UNIX-domain stream socket pair.
    pub fn unix() -> Result<EchoPartner, PlatformError> {
        let mut fds = [0; 2];
        check(
            // SAFETY: fills two connected descriptors into valid storage.
            unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr()) },
            "socketpair",
        )?;
        let partner = fork_echo(fds[1], fds[1])?;
        Ok(EchoPartner {
            to_partner: fds[0],
            from_partner: fds[0],
            partner,
            owned: fds.to_vec(),
        })
    }

    /// Over two named FIFOs in `dir`, opened in an order that cannot deadlock.
    pub fn fifos(dir: &Path) -> Result<EchoPartner, PlatformError> {
        let path = |name: &str| {
            CString::new(dir.join(name).as_os_str().as_bytes()).expect("no NUL in scratch paths")
        };
        let (there, back) = (path("fifo-there"), path("fifo-back"));
        for p in [&there, &back] {
            // SAFETY: a NUL-terminated path; an existing FIFO of an earlier partner is reused.
            let rc = unsafe { libc::mkfifo(p.as_ptr(), 0o600) };
            if rc != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST) {
                return Err(PlatformError::last_os("mkfifo"));
            }
        }
        // SAFETY: the child opens its ends (async-signal-safe) and echoes; the parent opens
        // the writer of `there` first, which waits for the child's reader, then `back`.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: in the child of fork: NUL-terminated paths built before it, then the
            // echo loop on the descriptors just opened.
            unsafe {
                let input = libc::open(there.as_ptr(), libc::O_RDONLY);
                let output = libc::open(back.as_ptr(), libc::O_WRONLY);
                if input < 0 || output < 0 {
                    libc::_exit(1);
                }
                echo(input, output)
            }
        }
        check(pid, "fork the partner")?;
        // SAFETY: NUL-terminated paths; the descriptors are owned by the EchoPartner.
        let to_partner = check(
            unsafe { libc::open(there.as_ptr(), libc::O_WRONLY) },
            "open FIFO",
        )?;
        // SAFETY: as above.
        let from_partner = check(
            unsafe { libc::open(back.as_ptr(), libc::O_RDONLY) },
            "open FIFO",
        )?;
        Ok(EchoPartner {
            to_partner,
            from_partner,
            partner: pid,
            owned: vec![to_partner, from_partner],
        })
    }

    /// Over two UDP sockets on 127.0.0.1, each connected to the other.
    pub fn udp() -> Result<EchoPartner, PlatformError> {
        let a = bound_udp()?;
        let b = bound_udp()?;
        connect(a, b)?;
        connect(b, a)?;
        let partner = fork_echo(b, b)?;
        Ok(EchoPartner {
            to_partner: a,
            from_partner: a,
            partner,
            owned: vec![a, b],
        })
    }

    /// Sends one message of [`MESSAGE_BYTES`] and reads the partner's echo (`write`, `read`).
    pub fn round_trip(&mut self) -> Result<(), PlatformError> {
        let message = [0x6bu8; MESSAGE_BYTES];
        let mut reply = [0u8; MESSAGE_BYTES];
        // SAFETY: descriptors this struct owns and buffers of MESSAGE_BYTES bytes.
        let (sent, got) = unsafe {
            let sent = libc::write(self.to_partner, message.as_ptr().cast(), MESSAGE_BYTES);
            let got = libc::read(self.from_partner, reply.as_mut_ptr().cast(), MESSAGE_BYTES);
            (sent, got)
        };
        if sent != MESSAGE_BYTES as isize || got != MESSAGE_BYTES as isize {
            return Err(PlatformError::last_os("round trip to the partner"));
        }
        Ok(())
    }
}

fn loopback(port: u16) -> libc::sockaddr_in {
    // SAFETY: sockaddr_in is plain data.
    let mut addr: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    addr.sin_family = libc::AF_INET as libc::sa_family_t;
    addr.sin_port = port.to_be();
    addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
    addr
}

const ADDR_LEN: libc::socklen_t = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;

fn bound_udp() -> Result<i32, PlatformError> {
    // SAFETY: a new datagram socket; no pointers.
    let fd = check(
        unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0) },
        "socket",
    )?;
    let addr = loopback(0);
    // SAFETY: a valid address of the given length, bound to an ephemeral loopback port.
    let rc = unsafe { libc::bind(fd, (&addr as *const libc::sockaddr_in).cast(), ADDR_LEN) };
    check(rc, "bind")?;
    Ok(fd)
}

fn connect(from: i32, to: i32) -> Result<(), PlatformError> {
    let mut addr = loopback(0);
    let mut len = ADDR_LEN;
    // SAFETY: reads the bound address of `to` into `addr`, `len` bytes long.
    let rc =
        unsafe { libc::getsockname(to, (&mut addr as *mut libc::sockaddr_in).cast(), &mut len) };
    check(rc, "getsockname")?;
    // SAFETY: a valid address of the given length.
    let rc = unsafe { libc::connect(from, (&addr as *const libc::sockaddr_in).cast(), len) };
    check(rc, "connect").map(|_| ())
}

impl Drop for EchoPartner {
    fn drop(&mut self) {
        // SAFETY: kills and reaps the partner this struct forked (status into valid storage)
        // and closes the descriptors it owns.
        unsafe {
            libc::kill(self.partner, libc::SIGKILL);
            let mut status = 0;
            libc::waitpid(self.partner, &mut status, 0);
            for &fd in &self.owned {
                libc::close(fd);
            }
        }
    }
}
