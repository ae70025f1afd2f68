"""Who is on the other end of a loopback connection: the uid that owns the client's socket.

Lambda handlers run on this machine and can reach the server over loopback like the user's own
tools. When they run as uids of their own (the sandbox, as root), the socket's owner tells them
apart, so that onceflow's own state-changing endpoints (reset, fault rules) answer the user's
tools only. Linux lists every TCP socket with its owner in /proc/net/tcp and /proc/net/tcp6.
"""

from __future__ import annotations

ESTABLISHED = "01"


def socket_owner(client_port: int, server_port: int) -> int | None:
    """The uid owning the established loopback socket from `client_port` to `server_port`, or None
    when it cannot be found (not Linux, the connection gone)."""
    want_local, want_remote = f"{client_port:04X}", f"{server_port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            owner = owner_in_line(line, want_local, want_remote)
            if owner is not None:
                return owner
    return None


def owner_in_line(line: str, local_port_hex: str, remote_port_hex: str) -> int | None:
    """One line of /proc/net/tcp: `sl local rem st tx:rx tr:when retrnsmt uid ...`, addresses as
    HEXIP:HEXPORT. The uid if the line is the established socket between those ports."""
    fields = line.split()
    if len(fields) < 8 or fields[3] != ESTABLISHED:
        return None
    if fields[1].rsplit(":", 1)[-1] != local_port_hex or fields[2].rsplit(":", 1)[-1] != remote_port_hex:
        return None
    try:
        return int(fields[7])
    except ValueError:
        return None
