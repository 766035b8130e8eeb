/* A flipped template's free flight (sim/world/flight.py `fly`), compiled: the same RK4 on the same floats.

Why: a flip of the game's templates spends about a fifth of its time in this loop in Python (four
derivative evaluations a step, several hundred steps a flight), for arithmetic a C loop does in
microseconds. Every expression below is the Python one, operand for operand and in its order, and the
file is compiled without fused multiply-adds (setup.py), so both give the same bits
(tests/world/test_plate_flight.py); min and max follow Python's builtins, which keep their first
argument unless the second is strictly beyond it.

The flight ends as the Python one's `until` says: when the plate falls (v_z < 0) and either its centre
is at or below a level (END_CENTRE), or its centre is within its reach of a level and its lowest point
below it (END_LOWEST: the outline's corners turned by the pose, the half thickness below them).
*/

#include <math.h>

#define DFSIM_API __attribute__((visibility("default")))

enum { END_CENTRE = 0, END_LOWEST = 1 };

/* the flight's constants, as Python hands them over (sim/world/flight.py `_compiled_fly`) */
enum {
	P_IX, P_IY, P_IZ, P_G, P_M, P_LX, P_LY, P_LZ, P_DRAG, P_KFACE, P_KEDGE, P_DT, P_MAXT,
	P_X0, P_X1, P_X2, P_V0, P_V1, P_V2, P_Q0, P_Q1, P_Q2, P_Q3,
	P_END, P_LEVEL, P_REACH, P_HALF, P_COUNT
};

static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }

/* sim/specs/die.py quat_rows: the rotation matrix of an xyzw quaternion, normalised first */
static void quat_rows(double x, double y, double z, double w, double* r)
{
	double n = sqrt(x * x + y * y + z * z + w * w);
	x = x / n;
	y = y / n;
	z = z / n;
	w = w / n;
	r[0] = 1 - 2 * (y * y + z * z);
	r[1] = 2 * (x * y - z * w);
	r[2] = 2 * (x * z + y * w);
	r[3] = 2 * (x * y + z * w);
	r[4] = 1 - 2 * (x * x + z * z);
	r[5] = 2 * (y * z - x * w);
	r[6] = 2 * (x * z - y * w);
	r[7] = 2 * (y * z + x * w);
	r[8] = 1 - 2 * (x * x + y * y);
}

/* Aero.per_velocity: k (N s/m) in the plate's drag force k v */
static double per_velocity(const double* p, double vx, double vy, double vz, double nx, double ny, double nz)
{
	double s, c;
	if (p[P_DRAG] == 0.0) return 0.0;
	s = sqrt(vx * vx + vy * vy + vz * vz);
	if (s < 1e-9) return 0.0;
	c = fabs(nx * vx + ny * vy + nz * vz) / s;
	return -(p[P_KFACE] * c + p[P_KEDGE] * sqrt(py_max(0.0, 1 - c * c))) * s;
}

/* fly's deriv: (a, dq/dt) at velocity v and orientation q */
static void deriv(const double* p, double vx, double vy, double vz, double qx, double qy, double qz, double qw, double* out)
{
	double r[9], bx, by, bz, wx, wy, wz, k;
	double lx = p[P_LX], ly = p[P_LY], lz = p[P_LZ];
	quat_rows(qx, qy, qz, qw, r);
	bx = (r[0] * lx + r[3] * ly + r[6] * lz) * p[P_IX];
	by = (r[1] * lx + r[4] * ly + r[7] * lz) * p[P_IY];
	bz = (r[2] * lx + r[5] * ly + r[8] * lz) * p[P_IZ];
	wx = r[0] * bx + r[1] * by + r[2] * bz;
	wy = r[3] * bx + r[4] * by + r[5] * bz;
	wz = r[6] * bx + r[7] * by + r[8] * bz;
	k = per_velocity(p, vx, vy, vz, r[2], r[5], r[8]) / p[P_M];
	out[0] = k * vx;
	out[1] = k * vy;
	out[2] = k * vz - p[P_G];
	out[3] = 0.5 * (qw * wx + wy * qz - wz * qy);
	out[4] = 0.5 * (qw * wy + wz * qx - wx * qz);
	out[5] = 0.5 * (qw * wz + wx * qy - wy * qx);
	out[6] = 0.5 * (-qx * wx - qy * wy - qz * wz);
}

/* sim/world/flight.py lowest_z: the lowest point's height at this pose (outline: n corners, x y pairs) */
static double lowest_z(const double* p, double x2, const double* q, const double* outline, int n)
{
	double r[9], low = 0.0, z;
	int i;
	quat_rows(q[0], q[1], q[2], q[3], r);
	for (i = 0; i < n; i++) {
		z = outline[2 * i] * r[6] + outline[2 * i + 1] * r[7];
		if (i == 0 || z < low || isnan(z)) low = z; /* numpy's min: a nan wins */
		if (isnan(low)) break;
	}
	return x2 + low - p[P_HALF] * fabs(r[8]);
}

static int ends(const double* p, const double* x, const double* v, const double* q, const double* outline, int n)
{
	if (!(v[2] < 0)) return 0;
	if ((int)p[P_END] == END_CENTRE) return x[2] <= p[P_LEVEL];
	return x[2] - p[P_REACH] < p[P_LEVEL] && lowest_z(p, x[2], q, outline, n) < p[P_LEVEL];
}

/* The flight from the state in p until it ends or max_t: out = x (3), v (3), q (4), t, turned; returns the
   steps taken, or -1 when the constants are not P_COUNT long. */
DFSIM_API int dfsim_plate_flight(const double* p, int n_p, const double* outline, int n_outline, double* out)
{
	double x[3], v[3], q[4], a1[7], a2[7], a3[7], a4[7], r[9], n_prev[3], nn[3];
	double u0, u1, u2, y0, y1, y2, z0, z1, z2, qn, t = 0.0, turned = 0.0;
	double h, h2, h6;
	int i, steps = 0;
	if (n_p != P_COUNT) return -1;
	for (i = 0; i < 3; i++) {
		x[i] = p[P_X0 + i];
		v[i] = p[P_V0 + i];
	}
	for (i = 0; i < 4; i++) q[i] = p[P_Q0 + i];
	h = p[P_DT];
	h2 = 0.5 * p[P_DT];
	h6 = p[P_DT] / 6;
	quat_rows(q[0], q[1], q[2], q[3], r);
	n_prev[0] = r[2];
	n_prev[1] = r[5];
	n_prev[2] = r[8];
	while (t < p[P_MAXT]) {
		if (ends(p, x, v, q, outline, n_outline)) break;
		deriv(p, v[0], v[1], v[2], q[0], q[1], q[2], q[3], a1);
		u0 = v[0] + h2 * a1[0];
		u1 = v[1] + h2 * a1[1];
		u2 = v[2] + h2 * a1[2];
		deriv(p, u0, u1, u2, q[0] + h2 * a1[3], q[1] + h2 * a1[4], q[2] + h2 * a1[5], q[3] + h2 * a1[6], a2);
		y0 = v[0] + h2 * a2[0];
		y1 = v[1] + h2 * a2[1];
		y2 = v[2] + h2 * a2[2];
		deriv(p, y0, y1, y2, q[0] + h2 * a2[3], q[1] + h2 * a2[4], q[2] + h2 * a2[5], q[3] + h2 * a2[6], a3);
		z0 = v[0] + h * a3[0];
		z1 = v[1] + h * a3[1];
		z2 = v[2] + h * a3[2];
		deriv(p, z0, z1, z2, q[0] + h * a3[3], q[1] + h * a3[4], q[2] + h * a3[5], q[3] + h * a3[6], a4);
		x[0] += h6 * (v[0] + 2 * u0 + 2 * y0 + z0);
		x[1] += h6 * (v[1] + 2 * u1 + 2 * y1 + z1);
		x[2] += h6 * (v[2] + 2 * u2 + 2 * y2 + z2);
		for (i = 0; i < 3; i++) v[i] += h6 * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]);
		for (i = 0; i < 4; i++) q[i] += h6 * (a1[3 + i] + 2 * a2[3 + i] + 2 * a3[3 + i] + a4[3 + i]);
		qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		for (i = 0; i < 4; i++) q[i] = q[i] / qn;
		t += p[P_DT];
		quat_rows(q[0], q[1], q[2], q[3], r);
		nn[0] = r[2];
		nn[1] = r[5];
		nn[2] = r[8];
		turned += acos(py_max(-1.0, py_min(1.0, nn[0] * n_prev[0] + nn[1] * n_prev[1] + nn[2] * n_prev[2])));
		n_prev[0] = nn[0];
		n_prev[1] = nn[1];
		n_prev[2] = nn[2];
		steps++;
	}
	for (i = 0; i < 3; i++) {
		out[i] = x[i];
		out[3 + i] = v[i];
	}
	for (i = 0; i < 4; i++) out[6 + i] = q[i];
	out[10] = t;
	out[11] = turned;
	return steps;
}
