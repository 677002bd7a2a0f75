set terminal pngcairo size 1100,700 noenhanced
set output 'bench/results/ladder-2026-11-29-fused/self-on/bench.png'
set logscale xy
set grid
set key left top
set xlabel 'particles'
set ylabel 'ms per frame (dt = 1/60 s)'
set title 'drape bench: n x n cloth pinned at two corners over a sphere (2026-11-29T16:44:29Z)'
plot 'bench/results/ladder-2026-11-29-fused/self-on/bench_plot.dat' index 0 with linespoints title 'cl0:pthread-skylake-avx512-Intel(R) Xeon 20x1 self on', \
     'bench/results/ladder-2026-11-29-fused/self-on/bench_plot.dat' index 1 with linespoints title 'cpu-reference 20x1 self on'
