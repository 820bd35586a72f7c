-- Mixed traffic for the soak: per request, by weight, a new user's sign-in (TOKENS, each once, then wrapping to
-- returning users), a returning user's sign-in (RETURNING), GET /api/users/me with a bearer value this script
-- received, GET /health and GET /login. DELAY_MS, when set, is waited before each request on each connection,
-- which holds the rate near connections * 1000 / DELAY_MS. Run with -t1 (bearers are kept per thread).
package.path = os.getenv("WRK_DIR") .. "/?.lua;" .. package.path
require("report")

local new_tokens = read_lines("TOKENS")
local returning_tokens = read_lines("RETURNING")
local delay_ms = tonumber(os.getenv("DELAY_MS") or "0")
local next_new = 1
local bearers = {}
local max_bearers = 4096
local json = { ["Content-Type"] = "application/json" }

local function sign_in(token)
    return wrk.format("POST", "/api/users/siwa", json, '{"token":"' .. token .. '","name":"Soak User"}')
end

function request()
    local pick = math.random(100)
    if pick <= 10 then
        local token = new_tokens[next_new]
        next_new = (next_new % #new_tokens) + 1
        return sign_in(token)
    elseif pick <= 25 or #bearers == 0 then
        return sign_in(returning_tokens[math.random(#returning_tokens)])
    elseif pick <= 80 then
        return wrk.format("GET", "/api/users/me", { ["Authorization"] = "Bearer " .. bearers[math.random(#bearers)] })
    elseif pick <= 90 then
        return wrk.format("GET", "/health")
    else
        return wrk.format("GET", "/login")
    end
end

function response(status, headers, body)
    if status == 200 and body then
        local value = body:match('"value"%s*:%s*"([^"]+)"')
        if value then
            value = value:gsub("\\/", "/")
            if #bearers < max_bearers then
                bearers[#bearers + 1] = value
            else
                bearers[math.random(max_bearers)] = value
            end
        end
    end
end

if delay_ms > 0 then
    function delay()
        return delay_ms
    end
end

function done(summary, latency, requests)
    report(summary, latency)
end
