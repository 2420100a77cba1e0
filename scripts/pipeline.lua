-- wrk script: send DEPTH pipelined `GET /` per round trip (TechEmpower plaintext style).
-- Usage: wrk ... -s scripts/pipeline.lua URL -- 16
init = function(args)
  local depth = tonumber(args[1]) or 16
  local batch = {}
  for i = 1, depth do
    batch[i] = wrk.format(nil, "/")
  end
  pipelined = table.concat(batch)
end

request = function()
  return pipelined
end
