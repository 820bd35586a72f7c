-- GET /api/users/me with the bearer values of BEARERS, round robin.
package.path = os.getenv("WRK_DIR") .. "/?.lua;" .. package.path
require("report")

local bearers = read_lines("BEARERS")
local next_index = 1

function request()
    local value = bearers[next_index]
    next_index = (next_index % #bearers) + 1
    return wrk.format("GET", "/api/users/me", { ["Authorization"] = "Bearer " .. value })
end

function done(summary, latency, requests)
    report(summary, latency)
end
