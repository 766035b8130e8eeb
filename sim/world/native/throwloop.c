/* dfsim's compiled throw loop: a PyBullet plugin that steps the world Python built.

PyBullet's plugin mechanism (pybullet.loadPlugin / executePluginCommand) hands a plugin a client
connected to the same physics server as the Python client that loaded it. This plugin runs the
per-step work of the throw loop against that client through Bullet's C API: step, read each die's
state and contact points, the contact step or the coarse one, lift-offs and contact damping, the rest
windows, the exact free flights (their plan and the flight itself). It returns to Python only where
the reference loop (sim/world/stepper.py) does work this file does not: a die touching a body it did
not touch the step before (its contact events), a rest window whose verdict needs the reference rest
detector, and the end of the throw.

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

enum { EV_END = 0, EV_TOUCH = 2, EV_WINDOW = 3 };
enum { CMD_PROBE = 1, CMD_BEGIN = 2, CMD_RESUME = 3 };
enum { AT_TOP = 0, AT_TOUCH = 2, AT_WINDOW = 3 };
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
	int n_boxes;
	const double* boxes; /* [box][6]: lo xyz, hi xyz of every body a die can touch */
	double radius[MAX_DICE]; /* bounding radius with the flight margin */
	double r_max, gravity;
	int min_jump;
	double* resets;  /* [jump][die][13]: position, orientation, velocity, spin after each flight */
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

static void reset_state(int body, const double* p, const double* q, const double* v, const double* w)
{
	b3SharedMemoryCommandHandle cmd = b3CreatePoseCommandInit(client, body);
	b3CreatePoseCommandSetBasePosition(cmd, p[0], p[1], p[2]);
	b3CreatePoseCommandSetBaseOrientation(cmd, q[0], q[1], q[2], q[3]);
	b3SubmitClientCommandAndWaitStatus(client, cmd);
	cmd = b3CreatePoseCommandInit(client, body);
	b3CreatePoseCommandSetBaseLinearVelocity(cmd, v);
	b3CreatePoseCommandSetBaseAngularVelocity(cmd, w);
	b3SubmitClientCommandAndWaitStatus(client, cmd);
}

/* ---------------- exact free flight (sim/world/ballistic.py and stepper.py's flight_plan, fly) ---------------- */

/* Python's max(a, b) and min(a, b): the first unless the second is strictly beyond it */
static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }

typedef struct
{
	double s, e;
} span;

#define MAX_SPANS 4096

static int linear(double p, double v, double lo, double hi, double t_max, span* out)
{
	if (v == 0.0)
	{
		if (lo <= p && p <= hi)
		{
			out->s = 0.0, out->e = t_max;
			return 1;
		}
		return 0;
	}
	double a = (lo - p) / v, b = (hi - p) / v;
	if (a > b)
	{
		double t = a;
		a = b, b = t;
	}
	a = py_max(a, 0.0), b = py_min(b, t_max);
	if (a <= b)
	{
		out->s = a, out->e = b;
		return 1;
	}
	return 0;
}

static int roots(double p, double v, double g, double level, double* t1, double* t2)
{
	double disc = v * v + 2.0 * g * (p - level);
	if (disc < 0.0) return 0;
	double r = sqrt(disc);
	*t1 = (v - r) / g, *t2 = (v + r) / g;
	return 1;
}

static int vertical(double p, double v, double g, double lo, double hi, double t_max, span* out)
{
	double a, b, c, d;
	span spans[2];
	int n = 1, m = 0;
	if (!roots(p, v, g, lo, &a, &b)) return 0;
	spans[0].s = a, spans[0].e = b;
	if (roots(p, v, g, hi, &c, &d))
	{
		spans[0].s = a, spans[0].e = py_min(b, c);
		spans[1].s = py_max(a, d), spans[1].e = b;
		n = 2;
	}
	for (int j = 0; j < n; j++)
	{
		double s = py_max(spans[j].s, 0.0), e = py_min(spans[j].e, t_max);
		if (s <= e) out[m].s = s, out[m].e = e, m++;
	}
	return m;
}

static int box_intervals(const double* p0, const double* v0, double g, double radius, const double* box, double t_max, span* out)
{
	span ix, iy, vs[2];
	int m = 0;
	if (!linear(p0[0], v0[0], box[0] - radius, box[3] + radius, t_max, &ix)) return 0;
	if (!linear(p0[1], v0[1], box[1] - radius, box[4] + radius, t_max, &iy)) return 0;
	double s0 = py_max(ix.s, iy.s), e0 = py_min(ix.e, iy.e);
	if (s0 > e0) return 0;
	int n = vertical(p0[2], v0[2], g, box[2] - radius, box[5] + radius, t_max, vs);
	for (int j = 0; j < n; j++)
	{
		double s = py_max(vs[j].s, s0), e = py_min(vs[j].e, e0);
		if (s <= e) out[m].s = s, out[m].e = e, m++;
	}
	return m;
}

static int pair_interval(const double* pa, const double* va, const double* pb, const double* vb, double reach, double t_max, span* out)
{
	double d[3], u[3];
	for (int i = 0; i < 3; i++) d[i] = pb[i] - pa[i], u[i] = vb[i] - va[i];
	double a = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
	double b = 2.0 * (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]);
	double c = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - reach * reach;
	if (a == 0.0)
	{
		if (c <= 0.0)
		{
			out->s = 0.0, out->e = t_max;
			return 1;
		}
		return 0;
	}
	double disc = b * b - 4.0 * a * c;
	if (disc < 0.0) return 0;
	double r = sqrt(disc);
	double s = py_max((-b - r) / (2 * a), 0.0), e = py_min((-b + r) / (2 * a), t_max);
	if (s <= e)
	{
		out->s = s, out->e = e;
		return 1;
	}
	return 0;
}

static int leave_window(const double* p, const double* v, double r_max, double t_max, span* out)
{
	double a = v[0] * v[0] + v[1] * v[1];
	if (a == 0.0) return 0;
	double b = 2.0 * (p[0] * v[0] + p[1] * v[1]);
	double c = p[0] * p[0] + p[1] * p[1] - r_max * r_max;
	double disc = b * b - 4 * a * c;
	if (disc < 0) return 0;
	double t_out = (-b + sqrt(disc)) / (2 * a);
	if (t_out < t_max)
	{
		out->s = py_max(t_out, 0.0), out->e = t_max;
		return 1;
	}
	return 0;
}

static int span_less(const span* x, const span* y) /* Python's tuple order */
{
	return x->s < y->s || (x->s == y->s && x->e < y->e);
}

/* flight_plan: steps of free flight to skip (n_skip) and whether a window ends (has_end, s from now) */
static int flight_plan(double horizon, int* n_skip, double* window_end)
{
	dfsim_loop* L = &dfsim_loop_state;
	static span spans[MAX_SPANS];
	span one[2];
	int n = 0;
	double g = L->gravity;
	for (int i = 0; i < L->n_dice; i++)
		for (int b = 0; b < L->n_boxes; b++)
		{
			int m = box_intervals(L->pos[i], L->v[i], g, L->radius[i], L->boxes + 6 * b, horizon, one);
			if (n + m > MAX_SPANS) return -1;
			for (int j = 0; j < m; j++) spans[n++] = one[j];
		}
	for (int i = 0; i < L->n_dice; i++)
		for (int j = i + 1; j < L->n_dice; j++)
			if (pair_interval(L->pos[i], L->v[i], L->pos[j], L->v[j], L->radius[i] + L->radius[j], horizon, one))
			{
				if (n >= MAX_SPANS) return -1;
				spans[n++] = one[0];
			}
	/* merge(): the first merged window is the smallest span grown by every span that starts inside it */
	int have = 0;
	span first = {0.0, 0.0};
	if (n)
	{
		int lo = 0;
		for (int j = 1; j < n; j++)
			if (span_less(&spans[j], &spans[lo])) lo = j;
		first = spans[lo];
		have = 1;
		for (int grown = 1; grown;)
		{
			grown = 0;
			for (int j = 0; j < n; j++)
				if (spans[j].s <= first.e && spans[j].e > first.e) first.e = spans[j].e, grown = 1;
		}
	}
	/* and the times each die leaves the world's cylinder, not merged; windows[0] is the least of all */
	for (int i = 0; i < L->n_dice; i++)
		if (leave_window(L->pos[i], L->v[i], L->r_max, horizon, one) && (!have || span_less(&one[0], &first)))
			first = one[0], have = 1;
	if (have && first.s <= 0.0)
		*n_skip = 0;
	else
		*n_skip = (int)((have ? first.s : horizon) / L->dt) - 1;
	*window_end = have ? first.e : -1.0;
	return have;
}

static void quat_after(const double* q0, const double* w, double t, double* out)
{
	double wx = w[0], wy = w[1], wz = w[2];
	double rate = sqrt(wx * wx + wy * wy + wz * wz);
	if (rate * t == 0.0)
	{
		memcpy(out, q0, 4 * sizeof(double));
		return;
	}
	double half = 0.5 * rate * t;
	double s = sin(half) / rate;
	double ax = wx * s, ay = wy * s, az = wz * s, aw = cos(half);
	double bx = q0[0], by = q0[1], bz = q0[2], bw = q0[3];
	out[0] = aw * bx + ax * bw + ay * bz - az * by;
	out[1] = aw * by - ax * bz + ay * bw + az * bx;
	out[2] = aw * bz + ax * by - ay * bx + az * bw;
	out[3] = aw * bw - ax * bx - ay * by - az * bz;
}

/* fly: the dice n_skip steps along their exact flight: path samples, resets (kept for the schedule) */
static void fly(int n_skip)
{
	dfsim_loop* L = &dfsim_loop_state;
	double g = L->gravity, half_g = 0.5 * g;
	double tau = (double)n_skip * L->dt;
	for (int i = 0; i < L->n_dice; i++)
	{
		const double *p = L->pos[i], *v = L->v[i];
		double* path = L->paths + ((size_t)i * L->cap + L->n_path[i]) * 3;
		for (int j = 1; j <= n_skip; j++)
		{
			double t = (double)j * L->dt;
			path[0] = p[0] + v[0] * t;
			path[1] = p[1] + v[1] * t;
			path[2] = (p[2] + v[2] * t) - half_g * (t * t);
			path += 3;
		}
		L->n_path[i] += n_skip;
		double* r = L->resets + ((size_t)L->n_resets * MAX_DICE + i) * 13;
		memcpy(r, path - 3, 3 * sizeof(double));
		quat_after(L->q[i], L->w[i], tau, r + 3);
		r[7] = v[0], r[8] = v[1], r[9] = v[2] - g * tau;
		memcpy(r + 10, L->w[i], 3 * sizeof(double));
		reset_state(L->body[i], r, r + 3, r + 7, r + 10);
	}
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
			{ /* stepper.py's flight_plan and fly */
				int n_skip;
				double window_end;
				int has_end = flight_plan((L->max_steps - L->k) * L->dt, &n_skip, &window_end);
				if (has_end < 0) return -4;
				if (has_end) L->plan_after = L->k + (int)(window_end / L->dt) + 1;
				if (n_skip >= L->min_jump)
				{
					fly(n_skip);
					L->jump = n_skip;
				}
			}
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
