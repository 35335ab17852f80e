-- Argo CD health of a Gatewright GatewayClassBlueprint (argocd-cm key
-- resource.customizations.health.gatewright.dev_GatewayClassBlueprint): read from the summary conditions
-- the controller writes at the top of the status, as kstatus reads them for Flux.
-- Only Argo CD's safe Lua libraries are used. docs/install.md, Argo CD.
local hs = { status = "Progressing", message = "waiting for the Gatewright controller to write the status" }
local status = obj.status
if status == nil or status.observedGeneration == nil then
  return hs
end
if status.observedGeneration ~= obj.metadata.generation then
  hs.message = "waiting for the Gatewright controller to observe generation " .. obj.metadata.generation
  return hs
end
local found = {}
for _, c in ipairs(status.conditions or {}) do
  found[c.type] = c
end
local function said(c)
  return c.reason .. ": " .. (c.message or "")
end
local function holds(t)
  return found[t] ~= nil and found[t].status == "True"
end
if holds("Stalled") then
  hs.status = "Degraded"
  hs.message = said(found.Stalled)
elseif holds("Reconciling") then
  hs.message = said(found.Reconciling)
elseif holds("Ready") then
  hs.status = "Healthy"
  hs.message = said(found.Ready)
elseif found.Ready ~= nil and found.Ready.status == "False" then
  -- Not ready, neither under way nor failed: a paused rollout holds it.
  hs.status = "Suspended"
  hs.message = said(found.Ready)
end
return hs
