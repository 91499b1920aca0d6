-- job_submit.lua — fairway's Slurm submit hook: jobs that arrive in a
-- fairway-managed partition are held, so that only fairway starts them.
--
-- fairway (connectors/slurm) releases a held job when its plan starts the
-- job, after pinning the job to the exact nodes it chose (ReqNodes).  A job
-- that nobody releases never runs, so Slurm's own scheduler cannot race
-- fairway for the GPUs of a managed partition.
--
-- Install (docs/slurm.md): copy this file next to slurm.conf, set
--     JobSubmitPlugins=lua
-- in slurm.conf and run `scontrol reconfigure`.  Edit MANAGED below to list
-- the partitions fairway schedules; DEFAULT_MANAGED says whether a job that
-- names no partition (and so lands in the default partition) is managed.

local MANAGED = { gpu = true }
local DEFAULT_MANAGED = true

local function managed(partition)
   if partition == nil or partition == "" then
      return DEFAULT_MANAGED
   end
   -- a job may list several partitions ("a,b"): managed if any is
   for p in string.gmatch(partition, "[^,]+") do
      if MANAGED[p] then
         return true
      end
   end
   return false
end

function slurm_job_submit(job_desc, part_list, submit_uid)
   if managed(job_desc.partition) then
      -- priority 0 is an administrator hold (what `scontrol hold` sets)
      job_desc.priority = 0
      job_desc.comment = "fairway: queued, not planned yet"
      -- fairway pins a job it starts to the nodes it chose (ReqNodes), so
      -- the nodes a user asked with -w/--nodelist are kept where fairway
      -- reads them, a requeue included: the job then starts on exactly
      -- those nodes, or stays held saying why (docs/slurm.md)
      if job_desc.req_nodes ~= nil and job_desc.req_nodes ~= "" then
         job_desc.admin_comment = "fairway: -w " .. job_desc.req_nodes
      end
   end
   return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   return slurm.SUCCESS
end

return slurm.SUCCESS
