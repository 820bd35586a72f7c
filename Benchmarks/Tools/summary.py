"""Prints the table of Benchmarks/run, the our/peer ratios and the bars. Usage: summary.py RESULTS "16 64 256" """
import sys

rows, extra = {}, {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 10 and parts[0] in ("ours", "vapor", "web", "hummingbird"):
        server, workload, conns = parts[0], parts[1], int(parts[2])
        rps, p50, p99, p999, status, socket, rss = parts[3:]
        rows[(server, workload, conns)] = dict(rps=float(rps), p50=int(p50), p99=int(p99), p999=int(p999),
                                               errors=int(status) + int(socket), rss=int(rss or 0))
    elif parts and parts[0] in ("idle", "limits"):
        extra[parts[0]] = dict(p.split("=") for p in parts[1:])
    elif parts[:2] == ["startup", "ms"]:
        extra["startup"] = [float(x) for x in parts[2:] if x != "timeout"]
    elif parts[:2] == ["build", "seconds"]:
        extra["build"] = float(parts[2])
conns_list = [int(c) for c in sys.argv[2].split()]


def rps(server, workload, conns=64):
    r = rows.get((server, workload, conns))
    return r["rps"] if r else 0


def ms(us):
    return "%.2f" % (us / 1000)


print()
print("%-10s %-6s | %-40s | %-40s | %6s" % ("", "", "ours (siwa / Web)", "peer (Vapor / Hummingbird)", "ratio"))
header = "%10s %7s %7s %7s %5s %6s" % ("req/s", "p50ms", "p99ms", "p99.9", "err", "RSS MB")
print("%-10s %-6s | %s | %s | %6s" % ("workload", "conns", header, header, "ours/peer"))
pairs = [("ours", "vapor", w) for w in ("new", "returning", "me", "web")] + \
        [("web", "hummingbird", w) for w in ("plaintext", "json")]
for ours, peer, workload in pairs:
    for conns in conns_list:
        cells = []
        for server in (ours, peer):
            r = rows.get((server, workload, conns))
            cells.append("%10.0f %7s %7s %7s %5d %6.1f" % (r["rps"], ms(r["p50"]), ms(r["p99"]), ms(r["p999"]),
                                                         r["errors"], r["rss"] / 1024) if r else "%47s" % "-")
        a, b = rows.get((ours, workload, conns)), rows.get((peer, workload, conns))
        ratio = "%.2fx" % (a["rps"] / b["rps"]) if a and b and b["rps"] > 0 else "-"
        print("%-10s %-6d | %s | %s | %6s" % (workload, conns, cells[0], cells[1], ratio))

limits = extra.get("limits", {})
rsa = float(limits.get("rsa2048_verify_per_s") or 0)
sqlite = float(limits.get("sqlite_single_row_commits_per_s") or 0)
signin_commits = float(limits.get("sqlite_signin_commits_per_s") or 0)
# The bar's limit, as the project states it: one core verifies a token (RSA-2048) and commits what a new user's
# sign-in writes (a user and a token row); done one after the other, a sign-in costs the sum of the two.
physical = 1 / (1 / rsa + 1 / signin_commits) if rsa and signin_commits else 0
print()
if physical:
    print("physical limit (1 core): RSA-2048 verify %.0f/s (openssl speed) and a new user's commit, a user and a"
          " token row in our schema, %.0f/s (WAL, synchronous=NORMAL, one transaction each) -> one after the"
          " other %.0f sign-ins/s" % (rsa, signin_commits, physical))
    for conns in conns_list:
        r = rows.get(("ours", "new", conns))
        if r:
            print("  new-user logins at %d connections: %.0f/s = %.0f%% of that limit (group commit puts many in"
                  " one transaction)" % (conns, r["rps"], 100 * r["rps"] / physical))
if rsa and sqlite:
    bare = min(rsa, sqlite)
    print("  for reference, against committed single-row inserts into a bare table (an id and a 200-byte blob), %.0f/s: min(RSA, that) %.0f/s;"
          " new-user logins at 64 connections %.0f%% of it" % (sqlite, bare, 100 * rps("ours", "new") / bare))
idle = extra.get("idle")
if idle:
    print("idle: %s/%s connections held (%s alive at the end), RSS %.1f MB, /health mean %s ms, max %s ms, non-200 %s"
          % (idle["held"], int(idle["held"]) + int(idle["failed"]), idle["alive_at_end"],
             int(idle["rss_kB"]) / 1024, idle["health_mean_ms"], idle["health_max_ms"], idle["health_non200"]))
startup = extra.get("startup", [])
if startup:
    print("start-up to first answered request: %s ms (median %.1f)" % (
        " ".join("%.1f" % s for s in startup), sorted(startup)[len(startup) // 2]))
if "build" in extra:
    print("clean release build of the product: %.0f s" % extra["build"])

print()
print("bars:")


def bar(name, ok, detail):
    print("  [%s] %s: %s" % ("met" if ok else "NOT met", name, detail))


if rps("vapor", "new"):
    bar("new-user logins >= 3x Vapor at 64", rps("ours", "new") >= 3 * rps("vapor", "new"),
        "%.2fx" % (rps("ours", "new") / rps("vapor", "new")))
if physical:
    bar("new-user logins >= 50% of the physical limit", rps("ours", "new") >= 0.5 * physical,
        "%.0f%% of %.0f/s" % (100 * rps("ours", "new") / physical, physical))
if rps("vapor", "returning"):
    bar("returning-user logins >= 4x Vapor at 64", rps("ours", "returning") >= 4 * rps("vapor", "returning"),
        "%.2fx" % (rps("ours", "returning") / rps("vapor", "returning")))
slow = [(w, rows[(s, w, 64)]["p99"]) for s, w in (("ours", "new"), ("ours", "returning"), ("ours", "me"),
                                                   ("web", "plaintext"), ("web", "json")) if (s, w, 64) in rows]
bar("p99 < 10 ms at 64 connections, every workload", all(p < 10000 for _, p in slow),
    ", ".join("%s %s ms" % (w, ms(p)) for w, p in slow))
for route in ("plaintext", "json"):
    if rps("hummingbird", route):
        ratios = [rps("web", route, c) / rps("hummingbird", route, c) for c in conns_list
                  if rps("hummingbird", route, c)]
        bar("%s >= 1.0x Hummingbird" % route, min(ratios) >= 1.0, " ".join("%.2fx" % r for r in ratios))
login_rss = [rows[("ours", w, 64)]["rss"] for w in ("new", "returning") if ("ours", w, 64) in rows]
if login_rss:
    bar("peak RSS under the 64-connection login load < 40 MB", max(login_rss) < 40 * 1024,
        "%.1f MB" % (max(login_rss) / 1024))
if idle:
    bar("10,000 idle connections, RSS < 150 MB, /health < 50 ms",
        int(idle["held"]) >= 10000 and int(idle["alive_at_end"] if idle["alive_at_end"].isdigit() else 0) >= 10000
        and int(idle["rss_kB"]) < 150 * 1024 and float(idle["health_max_ms"]) < 50 and idle["health_non200"] == "0",
        "held %s, RSS %.1f MB, /health max %s ms" % (idle["held"], int(idle["rss_kB"]) / 1024, idle["health_max_ms"]))
if startup:
    bar("start-up to first answered request < 100 ms", max(startup) < 100, "max %.1f ms" % max(startup))
if "build" in extra:
    bar("clean release build < 3 minutes", extra["build"] < 180, "%.0f s" % extra["build"])
