/* dfsim's compiled throw loop: a PyBullet plugin that steps the world Python built.

PyBullet's plugin mechanism (pybullet.loadPlugin / executePluginCommand) hands a plugin a client
connected to the same physics server as the Python client that loaded it. This plugin runs the
per-step work of the throw loop against that client through Bullet's C API: step, read each die's
state and contact points, the contact step or the coarse one, lift-offs and contact damping, the rest
windows. It returns to Python only where the reference loop (sim/world/stepper.py) does work this
file does not: a flight to plan, a die touching a body it did not touch the step before (its contact
events), a rest window whose verdict needs the reference rest detector, and the end of the throw.

Every number it computes is computed as the reference loop computes it, in the same order of
operations, and it is compiled with -ffp-contract=off (no fused multiply-adds), so both loops give the
same bits (sim/vectors.py says why an ordering matters). Where the reference uses a routine this file
does not copy (math.dist's exactly rounded length), a verdict near its threshold is left to Python.

The state the loop shares with Python (sim/world/compiled.py reads it through ctypes) is the one
`dfsim_loop` struct below: one loop runs at a time in a process.
*/

#include <math.h>
#include <string.h>

#include "bullet3/PhysicsClientC_API.h"
#include "bullet3/SharedMemoryPublic.h"
struct b3PluginContext;
struct b3PluginArguments;
#include "bullet3/plugins/b3PluginAPI.h"
/* b3PluginContext.h is written for C++: a struct named without its tag and a C++ class pointer */
typedef struct b3UserDataValue b3UserDataValue;
#define class struct
#include "bullet3/plugins/b3PluginContext.h"
#undef class

#define MAX_DICE 8
#define MAX_NAMES 64   /* names a die can touch at once */
#define MAX_POINTS 256 /* contact points of one die kept for Python */

enum { EV_END = 0, EV_PLAN = 1, EV_TOUCH = 2, EV_WINDOW = 3 };
enum { CMD_PROBE = 1, CMD_BEGIN = 2, CMD_RESUME = 3 };
enum { AT_TOP = 0, AT_PLAN = 1, AT_TOUCH = 2, AT_WINDOW = 3 };
enum { ST_OUT_OF_STEPS = 0, ST_REST = 1, ST_DIVERGED = 2 };
enum { SCHED_STEPS = 0, SCHED_DT = 1, SCHED_RESET = 2 };

typedef struct {
	/* ---- set by Python before a throw ---- */
	int n_dice;
	int body[MAX_DICE];
	double reach[MAX_DICE]; /* bounding radius: the fastest point is |v| + |w| x reach */
	int max_steps;
	int ratio; /* contact steps per coarse step */
	int win;   /* rest window, contact steps */
	int skip;  /* flights may be planned (analytic flight) */
	int free_before_plan;
	double dt; /* the contact step */
	double fine_speed;
	double radius2; /* the world's cylinder, m^2 */
	double floor_z;
	double touch;
	double max_disp, max_turn, spike_v2, spike_w2;
	int use_support;
	double disp_band; /* relative band around max_disp left to Python */
	int n_ids;
	const int* name_of_id; /* body id -> name index; -1: not registered */
	int n_names;
	const double* damping; /* [die * n_names + name]: contact damping of a die against a name */
	int cap;               /* samples per die in the buffers below */
	double* paths;         /* [die][cap][3] */
	int* ks;               /* [cap] the step of every path sample */
	int* stepped_ks;       /* [cap] ... of every step taken */
	int* lift_k;           /* [die][cap] the steps of lift-offs */
	int* sched_kind;       /* [2 cap + 8] */
	double* sched_val;
	/* ---- the loop's state ---- */
	int k, n_ks, n_stepped, n_sched, n_resets;
	int n_path[MAX_DICE], n_lift[MAX_DICE];
	int free_run, plan_after, run_steps, coarse_now;
	int n_flight, n_contact, n_coarse, n_rest, skipped, jumps, updates;
	int status[MAX_DICE];
	int at, die;
	int check, all_still, touching, diverged, fresh;
	double pos[MAX_DICE][3], q[MAX_DICE][4], v[MAX_DICE][3], w[MAX_DICE][3];
	int prev_ids_n[MAX_DICE];
	int prev_ids[MAX_DICE][MAX_NAMES];
	int prev_n[MAX_DICE];
	int prev_names[MAX_DICE][MAX_NAMES];
	double damp_now[MAX_DICE];
	int has_anchor[MAX_DICE];
	double anchor_p[MAX_DICE][3], anchor_q[MAX_DICE][4];
	int quiet_windows[MAX_DICE], need[MAX_DICE];
	/* ---- the event being handed to Python, and its answer ---- */
	int ids_n, now_n;
	int ids[MAX_NAMES], now_names[MAX_NAMES];
	int n_cp;
	int cp_body[MAX_POINTS];
	double cp_pos[MAX_POINTS][3], cp_normal[MAX_POINTS][3], cp_dist[MAX_POINTS];
	int jump;  /* after a plan: steps of exact flight Python flew (0: none) */
	int still; /* after a window: the reference detector's verdict (it wrote quiet_windows, need) */
	int error;
} dfsim_loop;

B3_SHARED_API dfsim_loop dfsim_loop_state;

/* the struct's size, for sim/world/compiled.py to check its mirror of it */
B3_SHARED_API int dfsim_loop_size(void)
{
	return (int)sizeof(dfsim_loop);
}

static b3PhysicsClientHandle client;

/* ---------------- Bullet's C API, as pybullet calls it ---------------- */

static int read_state(int i)
{
	dfsim_loop* L = &dfsim_loop_state;
	b3SharedMemoryStatusHandle s = b3SubmitClientCommandAndWaitStatus(client, b3RequestActualStateCommandInit(client, L->body[i]));
	const double *q = 0, *qd = 0;
	if (b3GetStatusType(s) != CMD_ACTUAL_STATE_UPDATE_COMPLETED) return 0;
	b3GetStatusActualState(s, 0, 0, 0, 0, &q, &qd, 0);
	L->pos[i][0] = q[0], L->pos[i][1] = q[1], L->pos[i][2] = q[2];
	L->q[i][0] = q[3], L->q[i][1] = q[4], L->q[i][2] = q[5], L->q[i][3] = q[6];
	L->v[i][0] = qd[0], L->v[i][1] = qd[1], L->v[i][2] = qd[2];
	L->w[i][0] = qd[3], L->w[i][1] = qd[4], L->w[i][2] = qd[5];
	return 1;
}

static int read_contacts(int body)
{
	dfsim_loop* L = &dfsim_loop_state;
	struct b3ContactInformation info;
	b3SharedMemoryCommandHandle cmd = b3InitRequestContactPointInformation(client);
	b3SetContactFilterBodyA(cmd, body);
	if (b3GetStatusType(b3SubmitClientCommandAndWaitStatus(client, cmd)) != CMD_CONTACT_POINT_INFORMATION_COMPLETED) return 0;
	b3GetContactPointInformation(client, &info);
	if (info.m_numContactPoints > MAX_POINTS) return 0;
	L->n_cp = info.m_numContactPoints;
	for (int c = 0; c < L->n_cp; c++)
	{
		const struct b3ContactPointData* p = &info.m_contactPointData[c];
		L->cp_body[c] = p->m_bodyUniqueIdB;
		L->cp_dist[c] = p->m_contactDistance;
		for (int j = 0; j < 3; j++)
		{
			L->cp_pos[c][j] = p->m_positionOnBInWS[j];
			L->cp_normal[c][j] = p->m_contactNormalOnBInWS[j];
		}
	}
	return 1;
}

static void step_world(void)
{
	b3SubmitClientCommandAndWaitStatus(client, b3InitStepSimulationCommand(client));
	dfsim_loop_state.updates++;
}

static void set_step(double dt)
{
	b3SharedMemoryCommandHandle cmd = b3InitPhysicsParamCommand(client);
	b3PhysicsParamSetTimeStep(cmd, dt);
	b3SubmitClientCommandAndWaitStatus(client, cmd);
}

static void set_damping(int body, double value)
{
	b3SharedMemoryCommandHandle cmd = b3InitChangeDynamicsInfo(client);
	b3ChangeDynamicsInfoSetLinearDamping(cmd, body, value);
	b3ChangeDynamicsInfoSetAngularDamping(cmd, body, value);
	b3SubmitClientCommandAndWaitStatus(client, cmd);
}

/* ---------------- the loop's own arithmetic (as sim/world/steprate.py and rest.py write it) ---------------- */

static double fastest_point_speed(const double* v, const double* w, double reach)
{
	return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * reach;
}

static int inside_world(const double* p, double r2, double floor_z)
{
	return p[0] * p[0] + p[1] * p[1] <= r2 && p[2] >= floor_z;
}

static void sched(int kind, double value)
{
	dfsim_loop* L = &dfsim_loop_state;
	L->sched_kind[L->n_sched] = kind;
	L->sched_val[L->n_sched] = value;
	L->n_sched++;
}

static void flush_steps(void)
{
	dfsim_loop* L = &dfsim_loop_state;
	if (L->run_steps)
	{
		sched(SCHED_STEPS, L->run_steps);
		L->run_steps = 0;
	}
}

/* sorted set insertion; returns the new size */
static int add_sorted(int* set, int n, int x)
{
	int at = 0;
	while (at < n && set[at] < x) at++;
	if (at < n && set[at] == x) return n;
	if (n >= MAX_NAMES) return -1;
	memmove(set + at + 1, set + at, (size_t)(n - at) * sizeof(int));
	set[at] = x;
	return n + 1;
}

static int same_set(const int* a, int na, const int* b, int nb)
{
	return na == nb && memcmp(a, b, (size_t)na * sizeof(int)) == 0;
}

static int subset(const int* a, int na, const int* b, int nb) /* a <= b, both sorted */
{
	int j = 0;
	for (int i = 0; i < na; i++)
	{
		while (j < nb && b[j] < a[i]) j++;
		if (j == nb || b[j] != a[i]) return 0;
	}
	return 1;
}

static int name_of(int id)
{
	dfsim_loop* L = &dfsim_loop_state;
	int n = (id >= 0 && id < L->n_ids) ? L->name_of_id[id] : -1;
	return n >= 0 ? n : L->n_names + id; /* an unregistered body is a name of its own ("body:<id>") */
}

/* ---------------- the throw loop (sim/world/stepper.py, `run`, statement by statement) ---------------- */

static int advance(void)
{
	dfsim_loop* L = &dfsim_loop_state;
	const int nd = L->n_dice;
	switch (L->at)
	{
		case AT_PLAN:
			goto after_plan;
		case AT_TOUCH:
			goto after_touch;
		case AT_WINDOW:
			goto after_window;
		default:
			break;
	}
	while (L->k < L->max_steps)
	{
		if (L->skip && L->free_run >= L->free_before_plan && L->k >= L->plan_after)
		{
			for (int i = 0; i < nd; i++)
				if (!read_state(i)) return -1;
			L->fresh = 1;
			L->jump = 0;
			L->at = AT_PLAN;
			return EV_PLAN; /* Python plans (and flies) and sets plan_after and jump */
		after_plan:
			L->at = AT_TOP;
			if (L->jump > 0)
			{
				flush_steps();
				sched(SCHED_RESET, L->n_resets++);
				for (int j = 1; j <= L->jump; j++) L->ks[L->n_ks++] = L->k + j;
				L->k += L->jump;
				L->skipped += L->jump;
				L->jumps++;
				L->jump = 0;
				L->fresh = 0; /* Python reset the dice */
				continue;
			}
		}
		/* per-impact step: a coarse step starts only on the coarse grid, so rest windows end on their steps */
		if (L->ratio > 1)
		{
			int coarse = L->k % L->ratio == 0 && L->k + L->ratio <= L->max_steps && L->k % L->win + L->ratio <= L->win;
			if (coarse)
			{
				if (!L->fresh)
				{
					for (int i = 0; i < nd; i++)
						if (!read_state(i)) return -1;
					L->fresh = 1;
				}
				for (int i = 0; i < nd; i++)
				{
					if (fastest_point_speed(L->v[i], L->w[i], L->reach[i]) > L->fine_speed)
					{
						coarse = 0;
						break;
					}
				}
			}
			if (coarse != L->coarse_now)
			{
				double dt = coarse ? L->dt * L->ratio : L->dt;
				flush_steps();
				set_step(dt);
				sched(SCHED_DT, dt);
				L->coarse_now = coarse;
			}
		}
		step_world();
		L->k += L->coarse_now ? L->ratio : 1;
		L->n_coarse += L->coarse_now;
		L->ks[L->n_ks++] = L->k;
		L->stepped_ks[L->n_stepped++] = L->k;
		L->run_steps++;
		L->check = L->k % L->win == 0;
		L->all_still = L->check;
		L->touching = 0;
		for (L->die = 0; L->die < nd; L->die++)
		{
			int i = L->die;
			if (!read_state(i)) return -1;
			double* path = L->paths + ((size_t)i * L->cap + L->n_path[i]) * 3;
			path[0] = L->pos[i][0], path[1] = L->pos[i][1], path[2] = L->pos[i][2];
			L->n_path[i]++;
			if (!inside_world(L->pos[i], L->radius2, L->floor_z))
			{
				L->status[i] = ST_DIVERGED;
				L->diverged = 1;
				continue;
			}
			if (!read_contacts(L->body[i])) return -2;
			L->ids_n = 0;
			for (int c = 0; c < L->n_cp; c++)
				if (L->cp_dist[c] <= L->touch && (L->ids_n = add_sorted(L->ids, L->ids_n, L->cp_body[c])) < 0) return -3;
			if (same_set(L->ids, L->ids_n, L->prev_ids[i], L->prev_ids_n[i]))
			{
				L->now_n = L->prev_n[i];
				memcpy(L->now_names, L->prev_names[i], sizeof(int) * (size_t)L->now_n);
			}
			else if (L->ids_n)
			{
				L->prev_ids_n[i] = L->ids_n;
				memcpy(L->prev_ids[i], L->ids, sizeof(int) * (size_t)L->ids_n);
				L->now_n = 0;
				for (int j = 0; j < L->ids_n; j++) L->now_n = add_sorted(L->now_names, L->now_n, name_of(L->ids[j]));
				if (!subset(L->now_names, L->now_n, L->prev_names[i], L->prev_n[i]))
				{
					L->at = AT_TOUCH;
					return EV_TOUCH; /* Python writes the contact events (it reads the points and the names) */
				}
			after_touch:
				L->at = AT_TOP;
				i = L->die;
			}
			else
			{
				L->prev_ids_n[i] = 0;
				L->now_n = 0;
			}
			if (L->ids_n) L->touching = 1;
			if (!same_set(L->now_names, L->now_n, L->prev_names[i], L->prev_n[i]))
			{
				if (!L->now_n) L->lift_k[(size_t)i * L->cap + L->n_lift[i]++] = L->k; /* a bounce starts here */
				double dmp = 0.0;
				for (int j = 0; j < L->now_n; j++)
				{
					int n = L->now_names[j];
					double d = n < L->n_names ? L->damping[i * L->n_names + n] : 0.0;
					if (d > dmp) dmp = d;
				}
				if (dmp != L->damp_now[i])
				{
					set_damping(L->body[i], dmp);
					L->damp_now[i] = dmp;
				}
				L->prev_n[i] = L->now_n;
				memcpy(L->prev_names[i], L->now_names, sizeof(int) * (size_t)L->now_n);
			}
			if (L->check)
			{
				/* sim/world/rest.py, RestDetector.window */
				int quiet = 0, ask = 0;
				if (L->has_anchor[i] && L->now_n)
				{
					const double* a = L->anchor_p[i];
					const double* aq = L->anchor_q[i];
					const double* p = L->pos[i];
					const double* qq = L->q[i];
					double dx = p[0] - a[0], dy = p[1] - a[1], dz = p[2] - a[2];
					double disp = sqrt(dx * dx + dy * dy + dz * dz);
					double dot = fabs(qq[0] * aq[0] + qq[1] * aq[1] + qq[2] * aq[2] + qq[3] * aq[3]);
					double turn = 2 * acos(dot < 1.0 ? dot : 1.0);
					if (fabs(disp - L->max_disp) <= L->disp_band * L->max_disp)
						ask = 1; /* math.dist rounds exactly: let the reference judge it */
					else if (disp < L->max_disp && turn < L->max_turn)
					{
						const double* v = L->v[i];
						const double* w = L->w[i];
						quiet = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < L->spike_v2 && w[0] * w[0] + w[1] * w[1] + w[2] * w[2] < L->spike_w2;
					}
					if (quiet && L->use_support && L->quiet_windows[i] >= 1) ask = 1; /* the support test */
				}
				if (ask)
				{
					L->at = AT_WINDOW;
					return EV_WINDOW;
				after_window:
					L->at = AT_TOP;
					i = L->die;
				}
				else
				{
					L->quiet_windows[i] = quiet ? L->quiet_windows[i] + 1 : 0;
					L->still = L->quiet_windows[i] >= L->need[i];
				}
				L->has_anchor[i] = 1;
				memcpy(L->anchor_p[i], L->pos[i], sizeof(L->anchor_p[i]));
				memcpy(L->anchor_q[i], L->q[i], sizeof(L->anchor_q[i]));
				L->all_still = L->all_still && L->still;
			}
		}
		L->fresh = 1;
		if (L->touching)
		{
			L->n_contact++;
			L->free_run = 0;
			L->plan_after = 0;
		}
		else
		{
			L->n_flight++;
			L->free_run++;
		}
		if (L->diverged) break;
		if (L->all_still)
		{
			int most = 0, confirm = 0;
			for (int i = 0; i < nd; i++)
			{
				L->status[i] = ST_REST;
				if (L->quiet_windows[i] > most) most = L->quiet_windows[i];
			}
			int since = L->k - most * L->win;
			for (int j = 0; j < L->n_stepped; j++) confirm += L->stepped_ks[j] > since;
			if (confirm > L->n_contact) confirm = L->n_contact;
			L->n_rest = confirm;
			L->n_contact -= confirm;
			break;
		}
	}
	flush_steps();
	L->at = AT_TOP;
	return EV_END;
}

static void begin(void)
{
	dfsim_loop* L = &dfsim_loop_state;
	L->k = L->n_ks = L->n_stepped = L->n_sched = L->n_resets = 0;
	L->free_run = L->plan_after = L->run_steps = L->coarse_now = 0;
	L->n_flight = L->n_contact = L->n_coarse = L->n_rest = L->skipped = L->jumps = L->updates = 0;
	L->at = AT_TOP;
	L->die = 0;
	L->diverged = L->fresh = L->jump = L->still = L->error = 0;
	for (int i = 0; i < MAX_DICE; i++)
	{
		L->n_path[i] = L->n_lift[i] = 0;
		L->status[i] = ST_OUT_OF_STEPS;
		L->prev_ids_n[i] = L->prev_n[i] = 0;
		L->damp_now[i] = 0.0;
		L->has_anchor[i] = 0;
		L->quiet_windows[i] = 0;
		L->need[i] = 2;
	}
}

/* one step and the read-outs of body 0 (the build's own check that the plugin drives the world) */
static int probe(void)
{
	dfsim_loop* L = &dfsim_loop_state;
	step_world();
	if (!read_state(0)) return -1;
	if (!read_contacts(L->body[0])) return -2;
	return L->n_cp;
}

/* ---------------- the plugin's entry points (bullet3: examples/SharedMemory/b3PluginManager.cpp) ---------------- */

B3_SHARED_API int initPlugin_dfsim_throwloop(struct b3PluginContext* context)
{
	(void)context;
	return SHARED_MEMORY_MAGIC_NUMBER;
}

B3_SHARED_API void exitPlugin_dfsim_throwloop(struct b3PluginContext* context)
{
	(void)context;
}

B3_SHARED_API int executePluginCommand_dfsim_throwloop(struct b3PluginContext* context, const struct b3PluginArguments* arguments)
{
	int result;
	if (arguments->m_numInts < 1) return -100;
	client = context->m_physClient;
	switch (arguments->m_ints[0])
	{
		case CMD_PROBE:
			result = probe();
			break;
		case CMD_BEGIN:
			begin();
			result = advance();
			break;
		case CMD_RESUME:
			result = advance();
			break;
		default:
			result = -101;
	}
	client = 0;
	return result;
}
