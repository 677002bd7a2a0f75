#!/usr/bin/env python3
"""Regenerates the string solver's reference CSVs (tests/data/string_ref_*.csv).

This is the seed 000 reference implementation (seeds/000_*.txt, section 7.17),
re-typed with its global constants turned into parameters so that several
configurations can be produced. The algorithm is kept statement for statement:
material_terms, solve_band, solve_material_velocity (active-set Newton with
backtracking on the seed's objective), project_contour (two sweeps), substep
(hand controller of section 7.15) and tick (adaptive substeps with halving
retry, section 7.13). The hand limits stay the Python's 1.15 L0 and 1.5 L0
(drape's defaults are 1.15 L0 and 6 m/s: equal for L0 = 4; the tests set
hand_speed = 1.5 L0 for the other lengths). It is a test-data generator only; it is not part of
drape and is never run by the tests.

    python3 tests/data/make_string_ref.py            # all configurations
    python3 tests/data/make_string_ref.py free small # some of them

Output columns are those of `drape string`: t,i,x,y,vx,vy (%.17g).
Runtime: about 30 s in all (numpy, one core).
"""

import os
import sys

import numpy as np


class SeedString:
    def __init__(self, N=80, L0=4.0, mu0=0.02, EA=100.0, etaA=30.0, h=0.0001,
                 B=0.0001, D=0.00001, g=(0.0, -9.81), anchor=None):
        self.N, self.L0, self.mu0, self.EA, self.etaA = N, L0, mu0, EA, etaA
        self.h, self.B, self.D = h, B, D
        self.ell0 = L0 / N
        self.g = np.array(g, dtype=float)
        self.anchor = (np.array([-0.4 * L0, 0.65 * L0]) if anchor is None
                       else np.array(anchor, dtype=float))
        self.hand_reach, self.hand_speed = 1.15 * L0, 1.5 * L0
        self.hand_response, self.hand_acceleration = 0.015, 100.0
        self.mass = np.full(N + 1, mu0 * self.ell0)
        self.mass[[0, -1]] *= 0.5

    def initial_state(self):
        N, L0, anchor = self.N, self.L0, self.anchor
        r = np.column_stack((anchor[0] + L0 * np.arange(N + 1) / N,
                             np.full(N + 1, anchor[1])))
        return np.array([r, np.zeros_like(r)])

    def material_terms(self, r):
        N, ell0, EA, etaA, B, D = self.N, self.ell0, self.EA, self.etaA, self.B, self.D
        terms = []
        for i in range(N):
            d = r[i + 1] - r[i]
            length = np.linalg.norm(d)
            if length > ell0:
                direction = d / length
                terms.append((2*i, np.concatenate((-direction, direction)),
                              EA*(length - ell0)/ell0, etaA/ell0, True))
        for i in range(1, N):
            a, b = r[i] - r[i - 1], r[i + 1] - r[i]
            aa, bb = np.dot(a, a), np.dot(b, b)
            if min(aa, bb) < 1e-24:
                continue
            theta = np.arctan2(a[0]*b[1] - a[1]*b[0], np.dot(a, b))
            pa = np.array([-a[1], a[0]]) / aa
            pb = np.array([-b[1], b[0]]) / bb
            gradients = np.concatenate((pa, -pa - pb, pb))
            terms.append((2*(i - 1), gradients, B*theta/ell0, D/ell0, False))
        return terms

    @staticmethod
    def solve_band(matrix, rhs):
        size, stride = matrix.shape
        width = stride - 1
        for i in range(size):
            for j in range(max(0, i - width), i + 1):
                value = matrix[i, i - j]
                for k in range(max(0, i - width), j):
                    value -= matrix[i, i - k] * matrix[j, j - k]
                matrix[i, i - j] = (np.sqrt(value) if i == j
                                    else value / matrix[j, 0])
        result = rhs.copy()
        for i in range(size):
            for j in range(max(0, i - width), i):
                result[i] -= matrix[i, i - j] * result[j]
            result[i] /= matrix[i, 0]
        for i in range(size - 1, -1, -1):
            for j in range(i + 1, min(size, i + width + 1)):
                result[i] -= matrix[j, j - i] * result[j]
            result[i] /= matrix[i, 0]
        return result

    def solve_material_velocity(self, state, h, held):
        N, g, mass = self.N, self.g, self.mass
        terms = self.material_terms(state[0])
        old = state[1].ravel().copy()
        old[:2] = 0
        size = old.size
        masses = np.repeat(mass, 2)
        known = np.zeros(size, dtype=bool)
        known[:2] = True
        if held:
            known[-2:] = True

        def rate(term, v):
            start, gradient, _, _, _ = term
            return np.dot(gradient, v[start:start + gradient.size])

        def active(term, v):
            _, _, elastic, damping, unilateral = term
            return not unilateral or damping == 0 or elastic + damping*rate(term, v) > 0

        def objective(v):
            value = np.sum(0.5*masses*(v - old)**2 - h*masses*np.tile(g, N + 1)*v)
            for term in terms:
                _, _, elastic, damping, unilateral = term
                speed = rate(term, v)
                value += h * (max(0.0, elastic + damping*speed)**2/(2*damping)
                              if unilateral and damping > 0
                              else elastic*speed + 0.5*damping*speed**2)
            return value

        current = old.copy()
        for _ in range(40):
            matrix = np.zeros((size, 6))
            matrix[:, 0] = masses
            rhs = masses * (old + h*np.tile(g, N + 1))
            flags = [active(term, current) for term in terms]
            for enabled, term in zip(flags, terms):
                if not enabled:
                    continue
                start, gradient, elastic, damping, _ = term
                for a, ga in enumerate(gradient):
                    i = start + a
                    rhs[i] -= h*elastic*ga
                    for b in range(a + 1):
                        matrix[i, a - b] += h*damping*ga*gradient[b]
            for i in range(size):
                for j in range(max(0, i - 5), i):
                    if known[i]:
                        rhs[j] -= matrix[i, i - j]*old[i]
                        matrix[i, i - j] = 0
                    elif known[j]:
                        rhs[i] -= matrix[i, i - j]*old[j]
                        matrix[i, i - j] = 0
            matrix[known, 0] = 1
            rhs[known] = old[known]
            candidate = self.solve_band(matrix, rhs)
            if all(flag == active(term, candidate) for flag, term in zip(flags, terms)):
                return candidate.reshape(N + 1, 2)
            cost, fraction = objective(current), 1.0
            for _ in range(24):
                trial = current + fraction*(candidate - current)
                if objective(trial) <= cost + 1e-15:
                    break
                fraction *= 0.5
            if np.max(np.abs(trial - current)) < 1e-10:
                return trial.reshape(N + 1, 2)
            current = trial
        raise RuntimeError("Internal friction solve did not converge")

    def project_contour(self, state, held):
        N, ell0 = self.N, self.ell0
        r, v = state
        inverse_mass = 1 / self.mass
        inverse_mass[0] = 0.0
        if held:
            inverse_mass[-1] = 0.0
        for indices in (range(N - 1, -1, -1), range(N)):
            for i in indices:
                d = r[i + 1] - r[i]
                length = np.linalg.norm(d)
                if length > ell0 * (1 + 1e-6):
                    continue
                wi, wj = inverse_mass[i:i + 2]
                if wi + wj == 0:
                    continue
                direction = d / length if length > 1e-12 else np.array([1.0, 0.0])
                correction = max(0.0, ell0 - length) / (wi + wj)
                left = -wi * correction * direction
                right = wj * correction * direction
                r[i] += left
                r[i + 1] += right
                closing = np.dot(v[i + 1] - v[i], direction)
                impulse = max(0.0, -closing) / (wi + wj)
                v[i] -= wi * impulse * direction
                v[i + 1] += wj * impulse * direction

    def substep(self, state, h, held=True, target=None):
        anchor = self.anchor
        start = state.copy()
        if held:
            point = start[0, -1].copy() if target is None else np.array(target)
            offset = point - anchor
            point = anchor + offset * min(1.0, self.hand_reach / max(np.linalg.norm(offset), 1e-12))
            delta = point - start[0, -1]
            omega = 1 / self.hand_response
            acceleration = omega**2 * delta - 2 * omega * start[1, -1]
            acceleration *= min(1.0, self.hand_acceleration / max(np.linalg.norm(acceleration), 1e-12))
            velocity = start[1, -1] + h * acceleration
            start[1, -1] = velocity * min(1.0, self.hand_speed / max(np.linalg.norm(velocity), 1e-12))
        prediction = start.copy()
        prediction[1] = self.solve_material_velocity(start, h, held)
        prediction[0] += h * prediction[1]
        self.project_contour(prediction, held)
        return prediction

    def tick(self, state, h, held=True, target=None):
        result = state.copy()
        if held and target is None:
            target = result[0, -1].copy()
        limit, remaining = 0.01 * self.ell0, h
        while remaining > h * 1e-12:
            speed = np.max(np.linalg.norm(result[1], axis=1))
            part = min(remaining, 0.9 * limit / max(speed, 1e-12))
            for attempt in range(21):
                prediction = self.substep(result, part, held, target)
                movement = np.max(np.linalg.norm(prediction[0] - result[0], axis=1))
                if movement <= limit * (1 + 1e-6):
                    break
                part *= 0.5
            else:
                raise RuntimeError("Could not resolve the string motion")
            result = prediction
            remaining -= part
        return result

    @staticmethod
    def release(state):
        released = state.copy()
        released[1, -1] = 0.0
        return released


# Each configuration: the model's parameters and a script of
# ("tick", n_ticks, held, target) / ("release",) / ("dump",) steps.
# tests/test_string.c replays the same scripts through the C API.
CONFIGS = {
    # The seed's own example: defaults, released at once, 0.1 s.
    "free": (dict(),
             [("release",), ("tick", 100, False, None), ("dump",),
              ("tick", 400, False, None), ("dump",),
              ("tick", 500, False, None), ("dump",)]),
    # Held with a target beyond the 4.6 m reach (clamped), so the hand's
    # acceleration (100 m/s^2) and speed (6 m/s) limits both engage; then
    # released while moving and left free.
    "held": (dict(),
             [("tick", 400, True, (5.0, -3.0)), ("dump",),
              ("tick", 400, True, (5.0, -3.0)), ("dump",),
              ("release",), ("tick", 200, False, None), ("dump",)]),
    # A different material, resolution and step, free from the start.
    "small": (dict(N=12, L0=1.5, mu0=0.05, EA=40.0, etaA=2.0, B=1e-3, D=1e-4,
                   h=2e-4, anchor=(0.0, 0.0)),
              [("release",), ("tick", 250, False, None), ("dump",),
               ("tick", 750, False, None), ("dump",),
               ("tick", 1000, False, None), ("dump",)]),
    # No material friction (etaA = D = 0: the unilateral terms' damping == 0
    # branch), held at a fixed target inside the reach.
    "nodamp": (dict(N=10, L0=1.0, mu0=0.1, EA=5.0, etaA=0.0, B=1e-3, D=0.0,
                    h=1e-4, anchor=(0.0, 0.0)),
               [("tick", 1000, True, (0.5, -0.3)), ("dump",),
                ("tick", 2000, True, (0.5, -0.3)), ("dump",)]),
}


def run(name, out_dir):
    params, script = CONFIGS[name]
    model = SeedString(**params)
    state = model.initial_state()
    ticks = 0
    rows = ["t,i,x,y,vx,vy"]
    for step in script:
        if step[0] == "release":
            state = model.release(state)
        elif step[0] == "tick":
            _, n, held, target = step
            for _ in range(n):
                state = model.tick(state, model.h, held, target)
            ticks += n
        else:
            t = ticks * model.h
            r, v = state
            for i in range(model.N + 1):
                rows.append("%.17g,%d,%.17g,%.17g,%.17g,%.17g"
                            % (t, i, r[i, 0], r[i, 1], v[i, 0], v[i, 1]))
    path = os.path.join(out_dir, "string_ref_%s.csv" % name)
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name in (sys.argv[1:] or list(CONFIGS)):
        run(name, here)
