"""The owner of a loopback socket, read from /proc/net/tcp lines."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from onceflow.wire.peers import _diag_owner, _listed_owner, is_this_process, owner_in_line, socket_owner

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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd is Linux's")
def test_a_connection_from_this_process_is_told_from_another_process() -> None:
    """The server calling itself (an SNS subscription to /_onceflow/reset) is no tool of the user's."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        server_port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", server_port)) as client:
            accepted, _ = listener.accept()
            with accepted:
                assert is_this_process(client.getsockname()[1], server_port)
        child = subprocess.Popen([sys.executable, "-c", "import socket, sys; s = socket.create_connection("
                                  f"('127.0.0.1', {server_port})); sys.stdin.read()"], stdin=subprocess.PIPE)
        try:
            accepted, (_, client_port) = listener.accept()
            with accepted:
                assert not is_this_process(client_port, server_port)
        finally:
            assert child.stdin is not None
            child.stdin.close()
            child.wait()
