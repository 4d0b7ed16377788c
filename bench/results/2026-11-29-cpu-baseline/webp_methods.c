#include <png.h>
#include <webp/encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc,char**argv){
  png_image im; memset(&im,0,sizeof im); im.version=PNG_IMAGE_VERSION;
  if(!png_image_begin_read_from_file(&im,argv[1]))return 1;
  int ch=PNG_IMAGE_PIXEL_CHANNELS(im.format);
  unsigned char*px=malloc(PNG_IMAGE_SIZE(im)); png_image_finish_read(&im,NULL,px,0,NULL);
  unsigned char*rgb=px; if(ch==1){rgb=malloc(im.width*im.height*3);for(size_t i=0;i<(size_t)im.width*im.height;i++)rgb[3*i]=rgb[3*i+1]=rgb[3*i+2]=px[i];ch=3;}
  printf("%s",argv[1]);
  for(int m=0;m<=6;m++){
    WebPConfig cfg; WebPPicture pic; WebPMemoryWriter wr; WebPConfigInit(&cfg); WebPPictureInit(&pic); WebPMemoryWriterInit(&wr);
    cfg.lossless=1; cfg.exact=1; cfg.method=m; cfg.quality=100;
    pic.use_argb=1; pic.width=im.width; pic.height=im.height; pic.writer=WebPMemoryWrite; pic.custom_ptr=&wr;
    if(ch==4) WebPPictureImportRGBA(&pic,rgb,im.width*4); else WebPPictureImportRGB(&pic,rgb,im.width*3);
    WebPEncode(&cfg,&pic); printf(" %zu",wr.size); fflush(stdout); WebPPictureFree(&pic); WebPMemoryWriterClear(&wr);
  }
  printf("\n"); return 0;}
