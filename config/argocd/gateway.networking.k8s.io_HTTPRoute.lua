-- Argo CD health of a Gateway API HTTPRoute (argocd-cm key
-- resource.customizations.health.gateway.networking.k8s.io_HTTPRoute), of any
-- implementation, from the conditions each parent's controller writes: Accepted=False
-- or ResolvedRefs=False on a parent is failed (on Gatewright's parents,
-- Accepted=False/UnsupportedValue is a render or apply of the route that failed), a
-- parent that has not judged the route's generation yet keeps it progressing. Only
-- Argo CD's safe Lua libraries are used. docs/install.md, Argo CD.
local hs = { status = "Progressing", message = "waiting for a Gateway's controller to accept the route" }
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
local acceptedBy = 0
local waiting = nil
for _, parent in ipairs((obj.status or {}).parents or {}) do
  local name = "parent " .. (parent.parentRef.namespace or obj.metadata.namespace or "") .. "/" .. parent.parentRef.name
  local accepted = find(parent.conditions, "Accepted")
  local resolved = find(parent.conditions, "ResolvedRefs")
  if stale(accepted) then
    waiting = waiting or (name .. ": waiting for its controller to judge generation " .. (generation or 0))
  elseif accepted.status == "False" then
    hs.status = "Degraded"
    hs.message = name .. ": " .. said(accepted)
    return hs
  elseif resolved ~= nil and not stale(resolved) and resolved.status == "False" then
    hs.status = "Degraded"
    hs.message = name .. ": " .. said(resolved)
    return hs
  elseif accepted.status ~= "True" then
    waiting = waiting or (name .. ": " .. said(accepted))
  else
    acceptedBy = acceptedBy + 1
  end
end
if waiting ~= nil then
  hs.message = waiting
elseif acceptedBy > 0 then
  hs.status = "Healthy"
  hs.message = "accepted by " .. acceptedBy .. " parent(s)"
end
return hs
