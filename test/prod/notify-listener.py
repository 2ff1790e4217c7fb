# A stand-in for systemd's notify socket (Node has no unix datagram sockets): binds
# argv[1], prints each sd_notify datagram as one JSON line, and closes the fds that
# sd_notify_barrier() sends (systemd-notify waits for that before exiting).
import json, os, socket, sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(sys.argv[1])
print(json.dumps({"listening": sys.argv[1]}), flush=True)
while True:
    msg, fds, _flags, _addr = socket.recv_fds(sock, 65536, 16)
    for fd in fds:
        os.close(fd)
    print(json.dumps({"fields": msg.decode().split("\n"), "fds": len(fds)}), flush=True)
