-- POST /api/users/siwa with the credentials of CREDENTIALS ("token code" lines, credentials.lua), each once: the
-- identity token, a name and, when WITH_CODE=1, the authorization code, as an iOS app sends them. Codes are
-- single-use: if the file runs out it starts again (WRAPPED on standard error) and those sign-ins fail. With
-- PACE_MS each connection waits that long before each request, to hold a rate (wrk calls delay() per request).
package.path = os.getenv("WRK_DIR") .. "/?.lua;" .. package.path
require("report")

local lines = read_lines("CREDENTIALS")
local with_code = os.getenv("WITH_CODE") == "1"
local bodies = {}
for i, line in ipairs(lines) do
    local token, code = line:match("^(%S+) (%S+)$")
    if with_code then
        bodies[i] = '{"token":"' .. token .. '","authorizationCode":"' .. code .. '","name":"Bench User"}'
    else
        bodies[i] = '{"token":"' .. token .. '","name":"Bench User"}'
    end
end
local next_index = 1
local wrapped = false
local headers = { ["Content-Type"] = "application/json" }
local pace = tonumber(os.getenv("PACE_MS") or "")
if pace then
    function delay()
        return pace
    end
end

function request()
    local body = bodies[next_index]
    next_index = next_index + 1
    if next_index > #bodies then
        next_index = 1
        if not wrapped then
            wrapped = true
            io.stderr:write("WRAPPED\n")
        end
    end
    return wrk.format("POST", "/api/users/siwa", headers, body)
end

function done(summary, latency, requests)
    report(summary, latency)
end
