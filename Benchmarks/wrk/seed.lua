-- Signs in every user of TOKENS once (each new) and writes the bearer values the server returns to BEARERS;
-- when every token has had an answer, creates BEARERS.done (wrk keeps running for its -d: the caller stops it).
-- Run with -t1.
package.path = os.getenv("WRK_DIR") .. "/?.lua;" .. package.path
require("report")

local tokens = read_lines("TOKENS")
local out = assert(io.open(os.getenv("BEARERS"), "w"))
local sent = 0
local answered = 0
local headers = { ["Content-Type"] = "application/json" }

function request()
    sent = sent + 1
    local token = tokens[((sent - 1) % #tokens) + 1]
    return wrk.format("POST", "/api/users/siwa", headers,
        '{"token":"' .. token .. '","name":"Bench User"}')
end

function response(status, headers, body)
    answered = answered + 1
    local value = body:match('"value"%s*:%s*"([^"]+)"')
    if value and answered <= #tokens then
        out:write((value:gsub("\\/", "/")) .. "\n")
    end
    if answered == #tokens then
        out:close()
        assert(io.open(os.getenv("BEARERS") .. ".done", "w")):close()
    end
end

function done(summary, latency, requests)
    report(summary, latency)
end
