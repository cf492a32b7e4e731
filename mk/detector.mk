# detector area
