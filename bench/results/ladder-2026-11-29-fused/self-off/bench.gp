set terminal pngcairo size 1100,700 noenhanced
set output 'bench/results/ladder-2026-11-29-fused/self-off/bench.png'
set logscale xy
set grid
set key left top
set xlabel 'particles'
set ylabel 'ms per frame (dt = 1/60 s)'
set title 'drape bench: n x n cloth pinned at two corners over a sphere (2026-11-29T16:41:39Z)'
plot 'bench/results/ladder-2026-11-29-fused/self-off/bench_plot.dat' index 0 with linespoints title 'cl0:pthread-skylake-avx512-Intel(R) Xeon 20x1 self off', \
     'bench/results/ladder-2026-11-29-fused/self-off/bench_plot.dat' index 1 with linespoints title 'cpu-reference 20x1 self off', \
     'bench/results/ladder-2026-11-29-fused/self-off/bench_plot.dat' index 2 with linespoints title 'cl0:pthread-skylake-avx512-Intel(R) Xeon 5x4 self off', \
     'bench/results/ladder-2026-11-29-fused/self-off/bench_plot.dat' index 3 with linespoints title 'cpu-reference 5x4 self off', \
     'bench/results/ladder-2026-11-29-fused/self-off/bench_plot.dat' index 4 with points pt 7 ps 1.5 title 'Bullet soft body, same cloth'
