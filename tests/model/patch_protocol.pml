/*
 * gpu-numa-hook: the cgroup v1 patch protocol (the prestart hook's patch and `check --fix`), for
 * spin. What is modeled, every simplification and every property: README.md in this directory.
 *
 * Variants (spin -D...):
 *   (none)           the protocol as hook/host/cgroup/patcher.cc, check_fix.cc and cpuset_writer.cc run it
 *   BOTTOM_UP        broken: the hook writes the container before the slice
 *   NO_LOCK          broken: neither the hook nor check --fix takes /run/gpu-numa-hook.lock
 *   NO_REREAD        broken: the hook plans from the chain it read before it took the lock
 *   NO_VERIFY        broken: the hook ignores write errors and starts without reading back
 *   LOCK_LEAK        broken: a hook whose write fails keeps the lock (no RAII release)
 *   NO_RETRY         the protocol before the model's finding: no re-plan after EINVAL or a failed
 *                    read-back, and the read-back requires the whole written value (fails P7)
 *   STRICT_AVAIL     the real protocol against a stronger availability property it does not meet
 *   STRICT_START     the real protocol against P2 without its exception (why P2 has one)
 *   LIVENESS         adds the LTL claim all_finish (for pan -a, with or without -f)
 *   KERNEL_FOREVER   the kernel hot(un)plugs forever instead of at most KEVENTS times
 *   NHOOKS=2|3       container starts (default 2; 3 adds a second start needing node 1)
 *
 * The printf lines narrate a counterexample when spin replays it (spin -t); a verifier (pan) does
 * not execute them. In them <m> is a node-set bitmask and @c a cgroup index; run-model.sh turns
 * both into names.
 */

/* Node sets are bitmasks. Node 0 has CPUs and is always online; nodes 1 and 2 are GPU memory that
   nvidia-persistenced onlines late. Two GPUs, so two hooks add different nodes: only then can a
   lost update show. */
#define N0 1
#define N1 2
#define N2 4

/* A fixed tree: the root, one slice (/docker, /kubepods.slice), container cgroups under it. */
#define ROOT  0
#define SLICE 1
#define CA    2     /* container A: GPU A, needs node 1 */
#define CB    3     /* container B: GPU B, needs node 2 */
#define CC    4     /* container C: GPU A again, needs node 1 (only with NHOOKS == 3) */
#define NCG   5

#ifndef NHOOKS
#define NHOOKS 2
#endif
#ifndef KEVENTS
#define KEVENTS 3
#endif

/* What a v1 cpuset.mems write can answer */
#define E_OK    0
#define E_INVAL 1   /* not within the root's mems, which the kernel keeps equal to the online nodes */
#define E_BUSY  2   /* a child would no longer be within the new value */
#define E_ACCES 3   /* not within the parent's mems */
#define E_IO    4   /* our read-back: the write succeeded but what we needed is not there */

byte mems[NCG];     /* cpuset.mems; 0 = not created yet (every created cgroup has node 0) */
byte holder;        /* the flock: 0 free, else the holder's _pid + 1 */
byte kev;           /* hotplug events so far */
byte decided;       /* hooks that reached their start or refuse decision */
bool check_done;

/* Ghosts: kept only to state the properties; nothing in the protocol reads them. */
byte lost_by_us;    /* nodes that a successful write of ours removed from a cpuset (P1) */
byte need[NCG];     /* the node each container's GPU needs */
bool quiet[NCG];    /* no hotplug event since the hook's first read (P5) */
bool gone[NCG];     /* its node went offline since the hook's latest read of its cgroup (P2) */
bool req_gone[NCG]; /* its node went offline since the hook's first read (STRICT_AVAIL) */
bool check_quiet;   /* no hotplug event since check --fix began its walk (P6) */
byte events[NCG];   /* hotplug events since the hook's first read, counted up to 2 (P7) */

#ifdef NO_LOCK
#define acquire skip
#define release skip
#else
/* flock(LOCK_EX): waits as long as it takes; the real wait's deadline is not modeled (README) */
#define acquire atomic { holder == 0 -> holder = _pid + 1; printf("%c: takes the lock\n", who) }
#define release atomic { assert(holder == _pid + 1); holder = 0; printf("%c: drops the lock\n", who) }
#endif

/* A write of cpuset.mems below the root, judged as the v1 kernel does (update_nodemask,
   validate_change): EINVAL unless within the root, EBUSY if a child would no longer be within it,
   EACCES unless within the parent. Atomic: the kernel holds cpuset_mutex across it. */
inline kwrite(cg, v, err) {
  atomic {
    if
    :: ((v) & ~mems[ROOT]) != 0 -> err = E_INVAL
    :: else ->
      if
      :: cg == SLICE && ((mems[CA] | mems[CB] | mems[CC]) & ~(v)) != 0 -> err = E_BUSY
      :: else ->
        if
        :: ((v) & ~mems[(cg == SLICE -> ROOT : SLICE)]) != 0 -> err = E_ACCES
        :: else ->
          /* P1: no write of ours removes a node (only the kernel's offlining does) */
          lost_by_us = lost_by_us | (mems[cg] & ~(v));
          mems[cg] = v;
          err = E_OK
        fi
      fi
    fi;
    printf("%c: writes <%d> to @%d: %d\n", who, v, cg, err);
    assert(lost_by_us == 0)
  }
}

/* The kernel. Onlining a node adds it to the root only (v1: children keep their mems); offlining
   removes it from every cpuset. Each event is one atomic step (README: simplifications). */
#ifdef LIVENESS
#define count_events skip   /* P7 is a safety property: the liveness runs leave its counters out */
#else
#define count_events \
  events[CA] = (events[CA] < 2 -> events[CA] + 1 : 2); \
  events[CB] = (events[CB] < 2 -> events[CB] + 1 : 2); \
  events[CC] = (events[CC] < 2 -> events[CC] + 1 : 2)
#endif
inline disturb() {
  quiet[CA] = false; quiet[CB] = false; quiet[CC] = false; check_quiet = false;
  count_events
}
inline online(n) {
  mems[ROOT] = mems[ROOT] | n;
  disturb();
  printf("kernel: onlines <%d>: root <%d>\n", n, mems[ROOT])
}
inline offline(n) {
  mems[ROOT] = mems[ROOT] & ~n; mems[SLICE] = mems[SLICE] & ~n;
  mems[CA] = mems[CA] & ~n; mems[CB] = mems[CB] & ~n; mems[CC] = mems[CC] & ~n;
  disturb();
  if :: need[CA] == n -> gone[CA] = true; req_gone[CA] = true :: else fi;
  if :: need[CB] == n -> gone[CB] = true; req_gone[CB] = true :: else fi;
  if :: need[CC] == n -> gone[CC] = true; req_gone[CC] = true :: else fi;
  printf("kernel: offlines <%d>: removed from every cpuset\n", n)
}

#ifdef KERNEL_FOREVER
#define MORE true
#define COUNT skip
#else
#define MORE (kev < KEVENTS)
#define COUNT kev++
#endif

proctype Kernel() {
end:
  do
  :: atomic { MORE && (mems[ROOT] & N1) == 0 -> online(N1); COUNT }
  :: atomic { MORE && (mems[ROOT] & N1) != 0 -> offline(N1); COUNT }
  :: atomic { MORE && (mems[ROOT] & N2) == 0 -> online(N2); COUNT }
  :: atomic { MORE && (mems[ROOT] & N2) != 0 -> offline(N2); COUNT }
  od
}

/* One step of apply_patch (write_mems_verified): write, then read back. Purely local work is folded
   into the atomic step next to it: only accesses to shared state need steps of their own. Dead
   locals are zeroed so that runs differing only there are one state. */
#ifdef LOCK_LEAK
#define release_on_error skip
#else
#define release_on_error release   /* the LockFile destructor, as the exception unwinds */
#endif
#if defined(NO_RETRY) || defined(NO_REREAD)
#define READ_BACK(cg, v) ((mems[cg] & (v)) != (v))   /* the whole written value must read back */
#define RETRY(e) false
#else
#define READ_BACK(cg, v) ((mems[cg] & req) != req)   /* only the added node (plan adds just req) */
#define RETRY(e) (((e) == E_INVAL || (e) == E_IO) && tries == 0)   /* worth_replanning(), once */
#endif
inline step(cg, v) {
  if
  :: v != 0 ->
    kwrite(cg, v, err);
#ifndef NO_VERIFY
    atomic {
      if
      :: err == E_OK && READ_BACK(cg, v) ->        /* "wrote X but it reads back Y" */
        printf("%c: reads back <%d> from @%d\n", who, mems[cg], cg);
        err = E_IO
      :: else
      fi;
      if
      :: RETRY(err) ->    /* re-read the chain and plan again, still holding the lock */
        printf("%c: plans again\n", who);
        tries = 1; v = 0; err = 0; goto replan
      :: err != E_OK && !RETRY(err) -> release_on_error; goto refuse
      :: else
      fi;
      v = 0; err = 0
    }
#else
    atomic { v = 0; err = 0 }
#endif
  :: else
  fi
}

/* One container start: the runtime creates its cgroup, then its prestart hook runs. */
proctype Container(byte c; byte req) {
  byte eff, s_mems, plan_s, plan_c, err;
  bool online_at_start;
  bit tries;                /* apply_patch() plans again at most once */
  byte who = 63 + c;        /* 'A', 'B', 'C' in the narration */

  /* runc: mkdir the container cgroup and copy the slice's mems into it (cpusetCopyIfNeeded) */
  atomic { mems[c] = mems[SLICE]; printf("%c: runc creates @%d with <%d>\n", who, c, mems[c]) }

  /* evaluate(): the container's mems, read with no lock; decide(): allow if it has the node */
  atomic {
    eff = mems[c];
    quiet[c] = true; gone[c] = false; req_gone[c] = false; events[c] = 0;
    online_at_start = ((mems[ROOT] & req) != 0);
    printf("%c: hook reads @%d <%d>, needs <%d>\n", who, c, eff, req);
    if
    :: (eff & req) != 0 -> goto start
    :: else
    fi
  }
  /* decide(): refuse if the node is not online (in the kernel's memory nodes, the root) */
  atomic {
    if
    :: (mems[ROOT] & req) == 0 -> printf("%c: node <%d> is not online\n", who, req); goto refuse
    :: else
    fi
  }

  /* patch: apply_patch() */
#ifdef NO_REREAD
  atomic { s_mems = mems[SLICE]; printf("%c: reads @1 <%d> (no lock yet)\n", who, s_mems) }
  atomic {
    plan_s = ((s_mems & req) != 0 -> 0 : s_mems | req);
    plan_c = ((eff & req) != 0 -> 0 : eff | req);
    s_mems = 0; eff = 0
  }
  acquire;
replan:                     /* never reached: RETRY is false here */
#else
  acquire;
replan:
  /* read_chain() under the lock, top-down: another start may have healed it meanwhile */
  s_mems = mems[SLICE];
  atomic {
    eff = mems[c]; gone[c] = false;
    /* plan_patch(): every cgroup below the root that lacks the node gets what it has | the node */
    plan_s = ((s_mems & req) != 0 -> 0 : s_mems | req);
    plan_c = ((eff & req) != 0 -> 0 : eff | req);
    printf("%c: re-reads the chain: @1 <%d>, @%d <%d>\n", who, s_mems, c, eff);
    s_mems = 0; eff = 0
  }
#endif
#ifdef BOTTOM_UP
  step(c, plan_c);
  step(SLICE, plan_s);
#else
  step(SLICE, plan_s);      /* top-down: a v1 child must stay within its parent */
  step(c, plan_c);
#endif
#ifdef NO_VERIFY
  release;
  goto start;
#else
  /* effective_after: the read the start rests on, then the lock goes. One step: dropping the lock
     commutes with every other process's step except taking the lock, which cannot come between. */
  atomic {
    eff = mems[c]; gone[c] = false;
    printf("%c: reads @%d <%d>\n", who, c, eff);
    release;
    if
    :: (eff & req) != 0 -> goto start
    :: else -> goto refuse
    fi
  }
#endif

start:
  atomic {
    printf("%c: STARTS the container; @%d has <%d>\n", who, c, mems[c]);
#ifdef STRICT_START
    /* P2 without its exception: the kernel may offline the node after the hook's last read */
    assert((mems[c] & req) != 0);
#else
    /* P2: started only if its cgroup has the node at the decision, unless the kernel offlined the
       node after the read the decision rests on (nothing a hook does can prevent that) */
    assert((mems[c] & req) != 0 || gone[c]);
#endif
    decided++;
    goto finish
  }
refuse:
  atomic {
    printf("%c: REFUSES the container (exit 1)\n", who);
    /* P5: a run with no hotplug event at all, whose node was online, is never refused */
    assert(!quiet[c] || (mems[ROOT] & req) == 0);
#ifdef STRICT_AVAIL
    /* stronger: refused only if its own node was offline at its start or went offline during it */
    assert(!online_at_start || req_gone[c]);
#endif
    /* P7: a start whose node was online and stayed online is refused only after two or more
       hotplug events during its run (one offlining of another GPU's node is absorbed by the re-plan) */
#ifndef LIVENESS
    assert(!online_at_start || req_gone[c] || events[c] >= 2);
#endif
    decided++
  }
finish:
  atomic {
    eff = 0; online_at_start = false; tries = 0; events[c] = 0;
    quiet[c] = false; gone[c] = true; req_gone[c] = true
  }
}

/* `check --fix`, fix_one(): under the lock re-read a planned cgroup and add what the plan found
   missing, if it still misses it. */
inline fix_one(cg, lack) {
  if
  :: lack != 0 ->
    now = mems[cg];
    atomic {
      if
      :: (now & lack) == lack -> now = 0          /* a hook healed it meanwhile */
      :: else -> now = now | lack; kwrite(cg, now, err)
      fi
    }
    atomic {
      /* P6: in a run with no hotplug event, every planned write succeeds and reads back */
      assert(now == 0 || !check_quiet || (err == E_OK && (mems[cg] & now) == now));
      now = 0; err = 0; lack = 0
    }
  :: else
  fi
}

proctype Check() {
  byte r, s, a, b, fs, now, err;
  byte lack_s, lack_a, lack_b, lack_c;
  byte who = 70;            /* 'F' in the narration */

  /* snapshot_cpusets(): one file at a time, no lock */
  atomic { r = mems[ROOT]; check_quiet = true }
  s = mems[SLICE];
  a = mems[CA];
  b = mems[CB];
  atomic {
    /* find_problems(), v1: a child is compared with what its parent has once fixed; a cgroup not
       created yet (mems 0) is not in the snapshot. Node 0 is never missing, so whatever is missing
       is a late node: stale. plan_check_fix(): the stale ones, parents first. */
    lack_s = r & ~s;
    fs = s | lack_s;
    lack_a = (a != 0 -> fs & ~a : 0);
    lack_b = (b != 0 -> fs & ~b : 0);
    lack_c = (mems[CC] != 0 -> fs & ~mems[CC] : 0);
    printf("F: check --fix snapshot: root <%d>, @1 <%d>, @2 <%d>, @3 <%d>\n", r, s, a, b);
    r = 0; s = 0; a = 0; b = 0; fs = 0
  }
  if
  :: (lack_s | lack_a | lack_b | lack_c) != 0 ->
    acquire;
    fix_one(SLICE, lack_s);
    fix_one(CA, lack_a);
    fix_one(CB, lack_b);
    fix_one(CC, lack_c);
    release
  :: else                     /* nothing stale: no lock taken */
  fi;
  atomic { check_done = true; check_quiet = false }
}

init {
  atomic {
    mems[ROOT] = N0;          /* boot: the GPU nodes are not online yet */
    mems[SLICE] = N0;         /* the slice was created then, and so lacks them */
    need[CA] = N1; need[CB] = N2; need[CC] = N1;
    /* only a hook's first read clears these: no state differs by them before it */
    gone[CA] = true; gone[CB] = true; gone[CC] = true;
    req_gone[CA] = true; req_gone[CB] = true; req_gone[CC] = true;
    /* everything starts once the boot state is set */
    run Kernel();
    run Check();
    run Container(CA, N1);
    run Container(CB, N2);
#if NHOOKS > 2
    run Container(CC, N1)
#endif
  }
}

#ifdef LIVENESS
/* P4: every hook reaches its decision and check --fix ends */
ltl all_finish { <> (decided == NHOOKS && check_done) }
#endif
