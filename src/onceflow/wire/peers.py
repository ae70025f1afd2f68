"""Who is on the other end of a loopback connection: the uid that owns the client's socket.

Lambda handlers run on this machine and can reach the server over loopback like the user's own
tools. When they run as uids of their own (the sandbox, as root), the socket's owner tells them
apart, so that onceflow's own state-changing endpoints (reset, fault rules) answer the user's
tools only. Linux answers for one socket through sock_diag (a netlink query: the kernel looks the
socket up by its addresses), and lists every TCP socket with its owner in /proc/net/tcp and
/proc/net/tcp6 - the fallback, since generating those lists walks every socket on the machine
(20 ms with a few hundred, paid by every reset and fault-rule call).
"""

from __future__ import annotations

import socket
import struct

ESTABLISHED = "01"
_SOCK_DIAG_BY_FAMILY = 20  # linux/sock_diag.h
_NETLINK_SOCK_DIAG = 4
_NLMSG_ERROR = 2
_NO_COOKIE = 0xFFFFFFFF
_LOOPBACK = ((socket.AF_INET, socket.inet_pton(socket.AF_INET, "127.0.0.1")),
             (socket.AF_INET6, socket.inet_pton(socket.AF_INET6, "::1")))


def socket_owner(client_port: int, server_port: int) -> int | None:
    """The uid owning the established loopback socket from `client_port` to `server_port`, or None
    when it cannot be found (not Linux, the connection gone)."""
    for family, address in _LOOPBACK:
        owner = _diag_owner(family, address, client_port, server_port)
        if owner is not None:
            return owner
    return _listed_owner(client_port, server_port)


def _diag_owner(family: int, address: bytes, client_port: int, server_port: int) -> int | None:
    """sock_diag's answer for the TCP socket address:client_port -> address:server_port (None if
    there is none, or netlink is not there)."""
    addr = address.ljust(16, b"\0")
    # inet_diag_req_v2 (family, protocol, ext, pad, states) + inet_diag_sockid (ports and addresses
    # in network order, interface, cookie): one exact lookup, not a dump.
    request = (struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 1 << int(ESTABLISHED, 16))
               + struct.pack(">HH", client_port, server_port) + addr + addr
               + struct.pack("=III", 0, _NO_COOKIE, _NO_COOKIE))
    header = struct.pack("=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, 1, 1, 0)  # NLM_F_REQUEST
    try:
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as nl:
            nl.settimeout(1.0)
            nl.send(header + request)
            answer = nl.recv(4096)
    except (OSError, AttributeError):  # not Linux (no AF_NETLINK), or no sock_diag here
        return None
    if len(answer) < 16 + 72:
        return None  # an NLMSG_ERROR (no such socket) is shorter than inet_diag_msg
    kind = struct.unpack_from("=H", answer, 4)[0]
    if kind != _SOCK_DIAG_BY_FAMILY:
        return None
    # inet_diag_msg: family, state, timer, retrans (4 bytes), sockid (48), expires, rqueue, wqueue, uid
    state = answer[16 + 1]
    if state != int(ESTABLISHED, 16):
        return None
    return int(struct.unpack_from("=I", answer, 16 + 64)[0])


def _listed_owner(client_port: int, server_port: int) -> int | None:
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
