-- POST /api/users/siwa with the identity tokens of TOKENS, one after another: each token once (distinct new users)
-- until the file runs out, then from the start again (those become returning users; WRAPPED in the output says so).
package.path = os.getenv("WRK_DIR") .. "/?.lua;" .. package.path
require("report")

local tokens = read_lines("TOKENS")
local next_index = 1
local wrapped = 0
local headers = { ["Content-Type"] = "application/json" }

function request()
    local token = tokens[next_index]
    next_index = next_index + 1
    if next_index > #tokens then
        next_index = 1
        wrapped = wrapped + 1
        if wrapped == 1 then io.stderr:write("WRAPPED\n") end
    end
    return wrk.format("POST", "/api/users/siwa", headers,
        '{"token":"' .. token .. '","name":"Bench User"}')
end

function done(summary, latency, requests)
    report(summary, latency)
end
