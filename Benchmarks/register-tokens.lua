-- wrk script: each request registers a new push token for project demo.
-- TOKEN_PREFIX keeps tokens unique across rounds and runs.
local prefix = os.getenv("TOKEN_PREFIX") or "bench"
local counter = 0
local headers = { ["Content-Type"] = "application/json" }
local body = '{"platform": "ios"}'

request = function()
    counter = counter + 1
    return wrk.format("PUT", "/v1/projects/demo/push-tokens/" .. prefix .. "-" .. counter, headers, body)
end
