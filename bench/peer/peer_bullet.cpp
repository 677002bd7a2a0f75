// Bullet's soft-body cloth (libbullet-dev) on drape's benchmark cloth, so
// both are timed in one run on one machine. Bullet is a position-based
// solver too (m_cfg.piterations passes of link projections per step), so it
// gets the same number of passes per frame as drape's substeps x iterations.
#include "peer.h"

#include <btBulletDynamicsCommon.h>
#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

extern "C" int drape_peer_bullet_available(void) { return 1; }

extern "C" int drape_peer_bullet_run(const drape_peer_case *c, drape_peer_result *r) {
  std::memset(r, 0, sizeof *r);
  std::snprintf(r->name, sizeof r->name, "bullet-%d.%02d", BT_BULLET_VERSION / 100,
                BT_BULLET_VERSION % 100);
  btSoftBodyRigidBodyCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btSoftRigidDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
  world.setGravity(btVector3(0, -9.81f, 0));
  btSoftBodyWorldInfo &info = world.getWorldInfo();
  info.m_gravity = btVector3(0, -9.81f, 0);
  info.m_sparsesdf.Initialize();

  btSphereShape sphere((btScalar)c->sphere_radius);
  btTransform tr;
  tr.setIdentity();
  tr.setOrigin(btVector3((btScalar)c->sphere_center[0], (btScalar)c->sphere_center[1],
                         (btScalar)c->sphere_center[2]));
  btDefaultMotionState motion(tr);
  btRigidBody::btRigidBodyConstructionInfo ci(0, &motion, &sphere);
  btRigidBody body(ci);
  world.addRigidBody(&body);

  const double side = c->spacing * (c->n - 1);
  const btVector3 o((btScalar)c->origin[0], (btScalar)c->origin[1], (btScalar)c->origin[2]);
  // Corners 00 and 10 are pinned (fixeds bits 1 and 2): the two corners of
  // drape's row 0, i.e. particles (0, 0) and (0, n-1).
  btSoftBody *cloth = btSoftBodyHelpers::CreatePatch(
      info, o, o + btVector3((btScalar)side, 0, 0), o + btVector3(0, 0, (btScalar)side),
      o + btVector3((btScalar)side, 0, (btScalar)side), c->n, c->n, 1 + 2, true);
  cloth->m_cfg.piterations = c->iterations;
  cloth->m_materials[0]->m_kLST = 1.0f;
  cloth->setTotalMass((btScalar)(c->mass_per_area * side * side));
  cloth->m_cfg.kDF = 0.3f; // dynamic friction with the sphere, as drape's scene
  world.addSoftBody(cloth);

  std::vector<double> ms;
  for (int f = 0; f < c->warmup + c->frames; f++) {
    auto t0 = std::chrono::steady_clock::now();
    world.stepSimulation((btScalar)c->dt, 1, (btScalar)c->dt);
    auto t1 = std::chrono::steady_clock::now();
    if (f >= c->warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) {
    r->ms_median = ms[ms.size() / 2];
    r->ms_min = ms.front();
    r->ms_max = ms.back();
  }
  r->finite = 1;
  for (int i = 0; i < cloth->m_nodes.size(); i++) {
    const btVector3 &x = cloth->m_nodes[i].m_x;
    if (!std::isfinite(x.x()) || !std::isfinite(x.y()) || !std::isfinite(x.z())) r->finite = 0;
  }
  double sum = 0, mx = 0;
  for (int i = 0; i < cloth->m_links.size(); i++) {
    const btSoftBody::Link &l = cloth->m_links[i];
    double len = (l.m_n[0]->m_x - l.m_n[1]->m_x).length();
    double s = len / l.m_rl - 1.0;
    sum += s;
    mx = std::max(mx, s);
  }
  r->links = cloth->m_links.size();
  r->max_strain = mx;
  r->mean_strain = r->links ? sum / r->links : 0;
  world.removeSoftBody(cloth);
  delete cloth;
  world.removeRigidBody(&body);
  return 0;
}
