-- Asks the Apple stand-in for COUNT app credentials (POST /dev/app-credential: an identity token and the
-- authorization code it carries in c_hash, as an iOS app receives them) for distinct new users
-- PREFIX<i>@example.com, and writes "token code" lines to CREDENTIALS; creates CREDENTIALS.done when all COUNT
-- arrived (wrk keeps running for its -d: the caller stops it). Run with -t1 against the stand-in itself.
local count = tonumber(os.getenv("COUNT"))
local prefix = os.getenv("PREFIX") or "x"
local client = os.getenv("CLIENT_ID") or "dev.siwa.ios"
local path = os.getenv("CREDENTIALS")
local out = assert(io.open(path, "w"))
local sent = 0
local written = 0
local headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }

function request()
    sent = sent + 1
    return wrk.format("POST", "/dev/app-credential", headers,
        "client_id=" .. client .. "&email=" .. prefix .. sent .. "%40example.com")
end

function response(status, headers, body)
    if written >= count then return end
    local token = body:match('"identityToken"%s*:%s*"([^"]+)"')
    local code = body:match('"authorizationCode"%s*:%s*"([^"]+)"')
    if status == 200 and token and code then
        out:write(token, " ", code, "\n")
        written = written + 1
        if written == count then
            out:close()
            assert(io.open(path .. ".done", "w")):close()
        end
    end
end
