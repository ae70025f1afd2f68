"""The owner of a loopback socket, read from /proc/net/tcp lines."""

from __future__ import annotations

import os
import socket
import sys

import pytest

from onceflow.wire.peers import _diag_owner, _listed_owner, owner_in_line, socket_owner

# 127.0.0.1:51000 -> 127.0.0.1:4566, established, uid 100007
LINE = ("  3: 0100007F:C738 0100007F:11D6 01 00000000:00000000 00:00000000 00000000 100007 0 12345 1 "
        "0000000000000000 20 4 30 10 -1")


def test_the_established_socket_between_the_ports_gives_its_uid() -> None:
    assert owner_in_line(LINE, f"{51000:04X}", f"{4566:04X}") == 100007


def test_other_ports_or_states_give_nothing() -> None:
    assert owner_in_line(LINE, f"{51001:04X}", f"{4566:04X}") is None
    assert owner_in_line(LINE, f"{4566:04X}", f"{51000:04X}") is None  # the server's side of it
    assert owner_in_line(LINE.replace(" 01 ", " 0A "), f"{51000:04X}", f"{4566:04X}") is None  # listening
    assert owner_in_line("garbage", "C738", "11D6") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/net/tcp is Linux's")
def test_a_real_connection_is_owned_by_this_process_uid() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        server_port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", server_port)) as client:
            accepted, _ = listener.accept()
            with accepted:
                client_port = client.getsockname()[1]
                assert socket_owner(client_port, server_port) == os.geteuid()
                # the kernel's one-socket answer and the full list agree; the server's side is not it
                loopback = socket.inet_pton(socket.AF_INET, "127.0.0.1")
                assert _diag_owner(socket.AF_INET, loopback, client_port, server_port) == os.geteuid()
                assert _listed_owner(client_port, server_port) == os.geteuid()
                assert _diag_owner(socket.AF_INET, loopback, server_port, client_port + 1) is None
