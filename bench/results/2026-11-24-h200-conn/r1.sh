cd .dev && tar xJf libs.tar.xz && cd ..
export LD_LIBRARY_PATH=$PWD/.dev/lib
SD_PARTS="one big" SD_BIG="4096 8192" bash bench/startup-device.sh
