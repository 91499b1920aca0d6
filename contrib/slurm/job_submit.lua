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

-- A hold that is not fairway's: `scontrol uhold`, a user's `scontrol
-- hold`, `sbatch --hold`.  fairway's own hold (priority 0 set here) shows
-- in Slurm 22.05 as JobHeldUser too, so fairway could not tell them apart
-- (checked in the test lab); the job's Comment says which.  fairway's
-- comment on such a job is this same text, and it plans the job only once
-- the user releases it (connectors/slurm: fw__slurm_user_held).
local HELD = "fairway: held by its user: not planned until released (scontrol release)"
local QUEUED = "fairway: queued, not planned yet"
local NO_VAL = 4294967294 -- slurm.h: the priority an update leaves alone

function slurm_job_submit(job_desc, part_list, submit_uid)
   if managed(job_desc.partition) then
      -- priority 0 holds it until fairway starts it (squeue: JobHeldUser);
      -- a job submitted held (sbatch --hold) is its user's hold as well
      local user_hold = job_desc.priority == 0
      job_desc.priority = 0
      job_desc.comment = user_hold and HELD or QUEUED
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

-- A -w changed after submission (scontrol update jobid=N nodelist=LIST,
-- or nodelist= to clear it) is recorded as "fairway: -w LIST" too, for
-- fairway to read.  Where (Slurm 22.05, checked in the test lab):
--   - the user's update writes the record into the job's Comment: a user
--     may not write AdminComment, and slurmctld applies the rest of an
--     update whose AdminComment it refuses, so the record must not go
--     there;
--   - the next update that replaces that Comment (fairway's own comment
--     or start, as root, SlurmUser or an administrator) moves the record
--     into AdminComment in the same update, inside slurmctld, so no write
--     loses it.  An empty LIST stays a record ("fairway: -w "):
--     slurmctld takes an empty string set here as "no change", and
--     fairway reads an empty list as no -w.
-- fairway reads the Comment's record over the AdminComment's (it is the
-- newer) and never writes a Comment that starts with the mark itself.
local MARK = "fairway: -w "
local STARTED = "fairway: started on "  -- fairway's start sets this comment
local JOB_PENDING = 0
-- slurm/slurm_errno.h; not among the few ESLURM_* names Slurm 22.05 gives
-- Lua.  A refused start answers it (Slurm's words: "Requested node
-- configuration is not available"), so fairway can tell a stale start
-- from other refusals (and reads the job again to be sure).
local ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE = 2014
-- A user's scontrol shows only Slurm's words for a refused update (the
-- hook's log_user reaches sbatch alone), so the refusals of a user's hold
-- answer these: "Job can not be altered now, try again later" (a hold
-- while a -w change waits for fairway to read it) and "Job is in held
-- state, pending scheduler release" (a -w change of a job its user
-- holds); slurmctld's log says more.
local ESLURM_TRANSITION_STATE_NO_UPDATE = 2020
local ESLURM_JOB_HELD = 2042

local function starts(text, prefix)
   return text ~= nil and string.sub(text, 1, #prefix) == prefix
end

-- The record in force: the Comment's, else the AdminComment's, else nil.
local function record_of(job_rec)
   if starts(job_rec.comment, MARK) then
      return job_rec.comment
   end
   if starts(job_rec.admin_comment, MARK) then
      return job_rec.admin_comment
   end
   return nil
end

-- The list of a record; nil for no record or an empty list (no -w).
local function list_of(record)
   if not starts(record, MARK) or #record == #MARK then
      return nil
   end
   return string.sub(record, #MARK + 1)
end

-- fairway's start names in AdminComment the record its plan honoured
-- (none for a job without -w).  A start planned before the user's latest
-- change would run the job off its -w: refused (fairway reads the job
-- again and plans it anew next cycle); else the record in force goes
-- into AdminComment, where it outlives the start for a requeue.  A start
-- that names no record while none waits in the Comment is let through:
-- so does a fairway older than this script start a job of -w given at
-- submission.
local function fairway_start(job_desc, job_rec)
   local now = record_of(job_rec)
   local planned = list_of(job_desc.admin_comment)
   local named = job_desc.admin_comment ~= nil or starts(job_rec.comment, MARK)
   if named and planned ~= list_of(now) then
      slurm.log_info("fairway: start of job %s refused: its -w changed to (%s) after fairway planned it " ..
                     "for (%s); fairway plans it again at its next cycle (nothing to do)",
                     tostring(job_rec.job_id), list_of(now) or "none", planned or "none")
      return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE
   end
   if now ~= nil then
      job_desc.admin_comment = now
   end
   return slurm.SUCCESS
end

-- An update that replaces a Comment holding the user's record: fairway's
-- comments move it into AdminComment; anyone else's comment gives way to
-- it (slurmctld would write their Comment and refuse the AdminComment,
-- losing the record).  fairway runs as root, SlurmUser or an
-- administrator (it drains nodes), not as the job's owner, and all its
-- comments start "fairway: ".
local function keep_record(job_desc, job_rec, modify_uid)
   local new, old = job_desc.comment, job_rec.comment
   if new == nil or starts(new, MARK) or not starts(old, MARK) then
      return slurm.SUCCESS -- no record replaced, or by a newer one
   end
   if starts(new, "fairway: ") and (modify_uid == 0 or modify_uid ~= job_rec.user_id) then
      job_desc.admin_comment = old
   else
      job_desc.comment = old
   end
   return slurm.SUCCESS
end

-- A hold or release that is not fairway's (fairway's updates all carry a
-- comment "fairway: ..."): a hold is recorded in the Comment (HELD); the
-- release of a job so recorded is turned back into fairway's hold
-- (priority 0, QUEUED), so that fairway plans it again and Slurm's own
-- scheduler does not start it where fairway did not choose.  nil: not
-- such an update.  A -w record waiting in the Comment (MARK) would be
-- lost under the hold's: refused (try again once fairway has moved it).
local function user_hold(job_desc, job_rec)
   local prio = job_desc.priority
   if prio == nil or prio == NO_VAL or starts(job_desc.comment, "fairway: ") then
      return nil
   end
   if prio == 0 then
      if starts(job_rec.comment, MARK) then
         slurm.log_info("fairway: hold of job %s refused: fairway has not read its -w change yet; " ..
                        "hold it again in a few seconds", tostring(job_rec.job_id))
         return ESLURM_TRANSITION_STATE_NO_UPDATE
      end
      job_desc.comment = HELD
      return slurm.SUCCESS
   end
   if starts(job_rec.comment, HELD) then
      job_desc.priority = 0
      job_desc.comment = QUEUED
      return slurm.SUCCESS
   end
   return nil
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   -- job_state % 256: the base state (JOB_STATE_BASE); Slurm refuses a
   -- -w change of a job that is not pending
   if not managed(job_rec.partition) or job_rec.job_state % 256 ~= JOB_PENDING then
      return slurm.SUCCESS
   end
   local held = user_hold(job_desc, job_rec)
   if held ~= nil then
      return held
   end
   if starts(job_rec.comment, HELD) and job_desc.req_nodes ~= nil and not starts(job_desc.comment, STARTED) then
      slurm.log_info("fairway: -w change of job %s refused: its user holds it (its Comment records the hold); " ..
                     "release it, then change its -w", tostring(job_rec.job_id))
      return ESLURM_JOB_HELD
   end
   if starts(job_rec.comment, HELD) and job_desc.comment ~= nil and not starts(job_desc.comment, "fairway: ") then
      job_desc.comment = job_rec.comment -- the hold's record stays while it holds
   end
   if job_desc.req_nodes ~= nil and starts(job_desc.comment, STARTED) then
      if starts(job_rec.comment, HELD) then
         -- its user held it after fairway read it: the hold wins
         slurm.log_info("fairway: start of job %s refused: its user holds it (its Comment records the hold); " ..
                        "fairway plans it once released", tostring(job_rec.job_id))
         return ESLURM_JOB_HELD
      end
      return fairway_start(job_desc, job_rec)
   end
   if job_desc.req_nodes ~= nil then
      job_desc.comment = MARK .. job_desc.req_nodes
      return slurm.SUCCESS
   end
   return keep_record(job_desc, job_rec, modify_uid)
end

return slurm.SUCCESS
