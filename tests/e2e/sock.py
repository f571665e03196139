# SPDX-License-Identifier: ISC
# A raw client of the requester socket (docs/protocol.md) for the hostile
# cases of test-serve.sh. Runs as whatever user starts it; prints one JSON
# reply per line, or a word saying what happened to the connection.
#
#   sock.py PATH send MSG...       each MSG (a JSON text) on one line; print replies
#   sock.py PATH raw BYTES         send BYTES + "\n" as they are; print the reply
#   sock.py PATH big N             one line of N bytes; print the reply, then
#                                  "closed" when the daemon hung up
#   sock.py PATH slow MSG SECS     MSG one byte per second for SECS seconds
#                                  (in the background: print "slow-closed"
#                                  when the daemon hangs up first)
#   sock.py PATH flood N           hold N connections, then send a list on
#                                  each; count the replies by code
#   sock.py PATH halfclose MSG     MSG, then shutdown(SHUT_WR); print replies
#   sock.py PATH connect           "connected" or the errno name
import errno, json, socket, sys, time

path, mode = sys.argv[1], sys.argv[2]
args = sys.argv[3:]

def conn(timeout=40):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s

def put(s, data):
    """Send data; a daemon that turns the peer away at accept answers and
    hangs up without reading, so the write may fail while its answer is
    already queued: the reading that follows still gets it."""
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass

def lines(s, n):
    buf, out = b"", []
    while len(out) < n:
        try:
            d = s.recv(65536)
        except socket.timeout:
            out.append("timeout")
            break
        except ConnectionResetError:
            out.append("closed")
            break
        if not d:
            out.append("closed")
            break
        buf += d
        while b"\n" in buf and len(out) < n:
            l, buf = buf.split(b"\n", 1)
            out.append(l.decode("utf-8", "replace"))
    return out

try:
    if mode == "connect":
        conn().close()
        print("connected")
    elif mode == "send":
        s = conn()
        for m in args:
            put(s, m.encode() + b"\n")
            for l in lines(s, 1):
                print(l)
    elif mode == "raw":
        s = conn()
        put(s, args[0].encode("utf-8", "surrogateescape") + b"\n")
        for l in lines(s, 1):
            print(l)
    elif mode == "big":
        s = conn()
        try:
            s.sendall(b"x" * int(args[0]))
        except (BrokenPipeError, ConnectionResetError):
            pass
        for l in lines(s, 2):
            print(l)
    elif mode == "slow":
        s = conn(timeout=int(args[1]) + 30)
        msg, t0 = args[0].encode() + b"\n", time.time()
        for b in msg:
            if time.time() - t0 > int(args[1]):
                break
            try:
                s.sendall(bytes([b]))
            except (BrokenPipeError, ConnectionResetError):
                print("slow-closed")
                sys.exit(0)
            time.sleep(1)
        print("slow-" + lines(s, 1)[0][:20])
    elif mode == "flood":
        held, refused = [], {}
        for i in range(int(args[0])):
            try:
                held.append(conn(timeout=10))
            except OSError as e:
                refused[errno.errorcode.get(e.errno, str(e.errno))] = \
                    refused.get(errno.errorcode.get(e.errno, str(e.errno)), 0) + 1
        counts = {}
        for s in held:
            try:
                s.sendall(b'{"op":"list"}\n')
            except OSError:
                pass
        for s in held:
            r = lines(s, 1)[0]
            try:
                j = json.loads(r)
                k = "ok" if j.get("ok") else j["error"]["code"]
            except ValueError:
                k = r
            counts[k] = counts.get(k, 0) + 1
        counts.update(refused)
        print(json.dumps(counts, sort_keys=True))
    elif mode == "halfclose":
        s = conn()
        s.sendall(args[0].encode() + b"\n")
        s.shutdown(socket.SHUT_WR)
        for l in lines(s, 1):
            print(l)
    else:
        sys.exit("unknown mode")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e)))
except Exception as e:
    print("sock.py:", type(e).__name__, e)
