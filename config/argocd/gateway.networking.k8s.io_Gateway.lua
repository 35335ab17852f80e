-- Argo CD health of a Gateway API Gateway (argocd-cm key
-- resource.customizations.health.gateway.networking.k8s.io_Gateway), of any
-- implementation, from its standard conditions. Unlike Argo CD's own check it reads
-- Programmed=False with reason Invalid as failed (Gatewright's render or apply of the
-- Gateway failed), not as progress, and a condition written for an older generation as
-- not yet judged. Only Argo CD's safe Lua libraries are used. docs/install.md, Argo CD.
local hs = { status = "Progressing", message = "waiting for a controller to accept the Gateway" }
local generation = obj.metadata.generation
local function find(conditions, conditionType)
  for _, c in ipairs(conditions or {}) do
    if c.type == conditionType then
      return c
    end
  end
  return nil
end
local function stale(c)
  return c == nil or (c.observedGeneration ~= nil and generation ~= nil and c.observedGeneration < generation)
end
local function said(c)
  return c.type .. " " .. c.status .. ", " .. c.reason .. ": " .. (c.message or "")
end
local function failed(c)
  return not stale(c) and ((c.status == "False" and (c.type == "Accepted" or c.type == "ResolvedRefs" or (c.type == "Programmed" and c.reason == "Invalid")))
    or (c.type == "Conflicted" and c.status == "True"))
end
local status = obj.status or {}
local accepted = find(status.conditions, "Accepted")
local programmed = find(status.conditions, "Programmed")
if stale(accepted) then
  return hs
end
if failed(accepted) then
  hs.status = "Degraded"
  hs.message = said(accepted)
  return hs
end
if accepted.status ~= "True" then
  hs.message = said(accepted)
  return hs
end
for _, listener in ipairs(status.listeners or {}) do
  for _, c in ipairs(listener.conditions or {}) do
    if failed(c) then
      hs.status = "Degraded"
      hs.message = "listener " .. listener.name .. ": " .. said(c)
      return hs
    end
  end
end
if stale(programmed) then
  hs.message = "waiting for the Gateway to be programmed"
  return hs
end
if failed(programmed) then
  hs.status = "Degraded"
  hs.message = said(programmed)
  return hs
end
if programmed.status ~= "True" then
  hs.message = said(programmed)
  return hs
end
for _, listener in ipairs(status.listeners or {}) do
  local listenerProgrammed = find(listener.conditions, "Programmed")
  if listenerProgrammed ~= nil and listenerProgrammed.status ~= "True" then
    hs.message = "listener " .. listener.name .. ": " .. said(listenerProgrammed)
    return hs
  end
end
hs.status = "Healthy"
hs.message = said(programmed)
return hs
