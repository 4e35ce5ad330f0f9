// kai-podgroup-controller: thin main; the component's library lands with its issue.
#include "controllers/common/component_info.h"

int main(int argc, char** argv) {
  return kai::controllers::RunPlaceholderMain("kai-podgroup-controller", argc, argv);
}
